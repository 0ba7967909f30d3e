/**
 * Seeded mutations of a committed fixture (issue 13). Every mutant is either rejected with a FluxError or
 * served exactly as it says: never a crash, never other bytes, never an outcome that disagrees with what the
 * agent was served. The bench (`node bench/fuzz.mjs`) runs the same mutations 10^5 times.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { isFluxError, readFixture, scenario } from 'fluxlab'
import YAML from 'yaml'
import { mutateFixture, prng } from '../../bench/mutate.mjs'
import { serializeFixture } from '../../src/cassette/fixture-write.js'
import { REPO } from '../e2e/support/project.js'
import { capitalToolLoop } from '../support/capital-agent.js'
import { tempDir, useEngineSandbox } from './helpers.js'

useEngineSandbox()

const SOURCE = join(REPO, 'examples/scenarios/capital-agent')
const files = Object.fromEntries(readdirSync(SOURCE).map((f) => [f, readFileSync(join(SOURCE, f), 'utf8')]))
const MUTATIONS = Number(process.env.FLUX_MUTATIONS ?? 10_000)
const REPLAYS = 100

function write(dir: string, m: Record<string, string | Buffer>): void {
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  for (const [f, text] of Object.entries(m)) writeFileSync(join(dir, f), text)
}

/** The bytes a stored chunk stands for, by the format's definition; undefined when it stands for none. */
function chunkBytes(c: { t?: unknown; text?: unknown; b64?: unknown }): Buffer | undefined {
  if (typeof c?.t !== 'number') return undefined
  if (typeof c.text === 'string' && c.b64 === undefined)
    return (c.text as string & { isWellFormed(): boolean }).isWellFormed() ? Buffer.from(c.text) : undefined
  if (typeof c.b64 === 'string' && c.text === undefined)
    return Buffer.from(c.b64, 'base64').toString('base64') === c.b64 ? Buffer.from(c.b64, 'base64') : undefined
  return undefined
}
const bodies = (jsonl: string | Buffer | undefined) =>
  String(jsonl ?? '')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const parts = (JSON.parse(l).response?.chunks ?? []).map(chunkBytes)
      return parts.every(Boolean) ? Buffer.concat(parts).toString('latin1') : 'invalid'
    })

/** bench/agent.mjs's capital agent (OpenAI SDK, streaming tool loop, one HTTP tool), keeping every body it is served. */
async function agent(served: Array<{ channel: 'model' | 'tool'; body: string }>): Promise<string> {
  const keep = (channel: 'model' | 'tool') => async (url: string | URL | Request, init?: RequestInit) => {
    const res = await globalThis.fetch(url, init)
    served.push({
      channel,
      body: await res
        .clone()
        .arrayBuffer()
        .then(
          (b) => Buffer.from(b).toString('latin1'),
          () => 'errored',
        ),
    })
    return res
  }
  const client = new OpenAI({ apiKey: 'sk-placeholder', baseURL: 'https://api.openai.com/v1', maxRetries: 0, fetch: keep('model') })
  const texts = await capitalToolLoop(client, { fetchTool: keep('tool'), atLimit: 'throw' })
  return texts.at(-1) ?? ''
}

/** Exceptions thrown by fluxlab's own code rather than by the agent or its SDK. */
const ours = (e: unknown) => /\/(src|dist)\/(?!.*node_modules)/.test(String((e as Error)?.stack ?? '').split('\n')[1] ?? '')

describe('seeded mutations of a committed fixture', () => {
  it(`${MUTATIONS} mutants fail with a FluxError or load with every chunk standing for bytes, never another exception`, {
    timeout: Math.max(120_000, MUTATIONS * 30),
  }, () => {
    const dir = join(tempDir(), 'capital-agent')
    const rand = prng(13)
    const crashes: string[] = []
    const undecodable: string[] = []
    let rejected = 0
    for (let i = 0; i < MUTATIONS; i++) {
      const { files: m, cls } = mutateFixture(files, rand)
      write(dir, m)
      try {
        readFixture(dir, { rerun: false })
      } catch (e) {
        if (isFluxError(e)) rejected++
        else crashes.push(`#${i} ${cls}: ${String(e)}`)
        continue
      }
      // accepted: then every stored chunk is valid text or canonical base64 (else replay would serve other bytes)
      if ([...bodies(m['model.jsonl']), ...bodies(m['tools.jsonl'])].includes('invalid')) undecodable.push(`#${i} ${cls}`)
    }
    expect(crashes).toEqual([])
    expect(undecodable).toEqual([])
    expect(rejected).toBeGreaterThan(MUTATIONS / 4)
  })

  it(`${REPLAYS} loadable mutants replayed through the OpenAI SDK serve exactly what they store, or fail`, { timeout: 120_000 }, async () => {
    process.env.FLUX_OFFLINE = '1'
    process.env.CI = '1'
    const root = tempDir()
    const dir = join(root, 'capital-agent')
    const rand = prng(7)
    const wrong: string[] = []
    let replayed = 0
    let faithful = 0
    for (let i = 0; replayed < REPLAYS && i < REPLAYS * 20; i++) {
      const { files: m, cls } = mutateFixture(files, rand)
      write(dir, m)
      try {
        readFixture(dir, { rerun: false })
      } catch {
        continue
      }
      replayed++
      const served: Array<{ channel: 'model' | 'tool'; body: string }> = []
      let answer: string | undefined
      let out
      try {
        out = await (await scenario('capital-agent', { dir: root })).run(async () => (answer = await agent(served)))
      } catch (e) {
        if (!isFluxError(e) && ours(e)) wrong.push(`#${i} ${cls}: fluxlab threw ${String(e)}`)
        continue
      }
      if (out.divergences.some((d) => d.severity === 'failure')) continue
      const expected = { model: bodies(m['model.jsonl']), tool: bodies(m['tools.jsonl']) }
      for (const s of served) {
        const at = expected[s.channel].indexOf(s.body)
        if (at < 0) wrong.push(`#${i} ${cls}: a ${s.channel} body the fixture does not store`)
        else expected[s.channel].splice(at, 1)
      }
      if (out.text !== answer) wrong.push(`#${i} ${cls}: outcome text ${JSON.stringify(out.text)}, the agent was served ${JSON.stringify(answer)}`)
      const usage = served
        .filter((s) => s.channel === 'model')
        .flatMap((s) => s.body.split('\n').filter((l) => l.startsWith('data: {')))
        .map((l) => {
          try {
            return JSON.parse(l.slice(6)).usage
          } catch {
            return undefined
          }
        })
        .filter(Boolean)
      const input = usage.reduce((n, u) => n + u.prompt_tokens, 0)
      if (out.usage.input !== input) wrong.push(`#${i} ${cls}: outcome usage.input ${out.usage.input}, the agent was served ${input}`)
      if (!wrong.length) faithful++
    }
    expect(wrong).toEqual([])
    expect(replayed).toBe(REPLAYS)
    expect(faithful).toBeGreaterThan(REPLAYS / 2)
  })

  /** Mutants of `source` replayed: how many served the agent a body `source` does not store and did not fail. */
  async function silentWrongServes(source: Record<string, string>, seed: number, count: number): Promise<{ replayed: number; wrong: string[] }> {
    process.env.FLUX_OFFLINE = '1'
    process.env.CI = '1'
    const root = tempDir()
    const dir = join(root, 'capital-agent')
    const rand = prng(seed)
    const recorded = { model: bodies(source['model.jsonl']), tool: bodies(source['tools.jsonl']) }
    const wrong: string[] = []
    let replayed = 0
    for (let i = 0; i < count; i++) {
      const { files: m, cls } = mutateFixture(source, rand)
      write(dir, m)
      const served: Array<{ channel: 'model' | 'tool'; body: string }> = []
      let out
      try {
        out = await (await scenario('capital-agent', { dir: root })).run(async () => agent(served))
      } catch {
        continue
      }
      replayed++
      if (out.divergences.some((d) => d.severity === 'failure')) continue
      for (const s of served) if (!recorded[s.channel].includes(s.body)) wrong.push(`#${i} ${cls}: a ${s.channel} body the recording does not hold`)
    }
    return { replayed, wrong }
  }

  it('held-out mutants of a fixture with digests never serve other bytes than recorded without failing (issue 28)', { timeout: 240_000 }, async () => {
    const cells = (f: string) =>
      files[f]
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l))
    const s = serializeFixture({ manifest: YAML.parse(files['scenario.yaml']), model: cells('model.jsonl'), tools: cells('tools.jsonl') })
    const digested = { ...files, 'model.jsonl': s.model, 'tools.jsonl': s.tools }
    expect(digested['tools.jsonl']).toContain('"digest":"sha256:')
    // the same held-out seed on the committed fixture (no digests, read unchecked) shows what the digests catch
    const before = await silentWrongServes(files, 28, 400)
    const after = await silentWrongServes(digested, 28, 400)
    console.log(`silent wrong serves in 400 mutants: ${before.wrong.length} without digests, ${after.wrong.length} with`)
    expect(before.wrong.length).toBeGreaterThan(0)
    expect(after.wrong).toEqual([])
    expect(after.replayed).toBeGreaterThan(50)
  })
})
