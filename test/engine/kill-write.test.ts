/**
 * A re-record killed with SIGKILL at a random moment (issue 13): the fixture on disk is always one whole
 * generation (never the files of two), and the next recording leaves no temporary file behind.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { readFixture } from 'fluxlab'
import { loadExchanges, startProviderServer } from '../support/index.js'
import { assertBuilt, linkSelf, REPO } from '../e2e/support/project.js'
import { tempDir, track, useEngineSandbox } from './helpers.js'

useEngineSandbox()

const LOOP = join(REPO, 'test/engine/fixtures/rerecord-loop.mjs')
const KILLS = Number(process.env.FLUX_KILLS ?? 12)
/** A temporary entry of an atomic write (this version's `*.flux-tmp`, or the `.*.tmp` of fluxlab ≤ 0.1.0). */
const TEMP = /\.(flux-)?tmp$/

beforeAll(() => {
  assertBuilt()
  linkSelf()
})

function start(env: Record<string, string>): { child: ChildProcess; exit: Promise<number | null>; gens: () => number } {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(CI|FLUX_|VITEST|NODE_OPTIONS)/.test(k)))
  const child = spawn(process.execPath, [LOOP], { cwd: REPO, env: { ...clean, FLUX_GOLDEN: 'update', FLUX_CASSETTE_MAX_BYTES: String(64 << 20), ...env } })
  let out = ''
  let err = ''
  child.stdout!.on('data', (d) => (out += d))
  child.stderr!.on('data', (d) => (err += d))
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  void exit.then((code) => {
    if (code !== null && code !== 0) throw new Error(`rerecord-loop exited ${code}: ${err}`)
  })
  return { child, exit, gens: () => out.trim().split('\n').filter(Boolean).length }
}

/** Every entry under `dir`, recursively, by path relative to it (a directory renamed away meanwhile, by a swap, has none). */
function entries(dir: string, prefix = ''): string[] {
  let found
  try {
    found = readdirSync(dir, { withFileTypes: true })
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' && prefix) return []
    throw e
  }
  return found.flatMap((e) => [prefix + e.name, ...(e.isDirectory() ? entries(join(dir, e.name), `${prefix}${e.name}/`) : [])])
}

/** The generation each file of the fixture says it belongs to. */
function generations(dir: string): Record<string, number | undefined> {
  const fx = readFixture(dir, { rerun: false })
  const gen = (s: string | undefined) =>
    Number(
      /generation (\d+)|"gen":(\d+)/
        .exec(s ?? '')
        ?.slice(1)
        .find(Boolean),
    )
  return {
    manifest: (fx.manifest.input as { gen: number }).gen,
    model: gen(JSON.stringify(fx.model[0].request.body)),
    tools: gen(JSON.stringify(fx.tools[0].args)),
    trace: gen(readFileSync(join(dir, 'trace.snap'), 'utf8')),
  }
}

describe('a re-record killed with SIGKILL', () => {
  it(`leaves one whole generation and, after the next record, no temp file (${KILLS} kills)`, { timeout: Math.max(120_000, KILLS * 10_000) }, async () => {
    const exchange = loadExchanges('openai-chat/openai-text.json')[0]
    const server = await startProviderServer({ script: () => exchange })
    track(server)
    const root = tempDir()
    const fixture = join(root, 'loop')
    const first = start({ PROVIDER_URL: server.url, FIXTURE_ROOT: root, ONCE: '1' })
    expect(await first.exit).toBe(0)
    let leftovers = 0
    let generationsWritten = 0
    for (let i = 0; i < KILLS; i++) {
      const run = start({ PROVIDER_URL: server.url, FIXTURE_ROOT: root, START_GEN: String(100 * (i + 1)) })
      // once it has written a generation: every other kill lands the moment a temp entry shows up (mid-write),
      // the others after a delay that varies from kill to kill
      while (run.gens() < 1) await new Promise((r) => setTimeout(r, 5))
      if (i % 2 === 0) {
        const until = Date.now() + 5000
        while (Date.now() < until && !entries(root).some((e) => TEMP.test(e))) await new Promise((r) => setImmediate(r))
      } else await new Promise((r) => setTimeout(r, (i * 37) % 300))
      run.child.kill('SIGKILL')
      await run.exit
      generationsWritten += run.gens()
      leftovers += entries(root).filter((e) => TEMP.test(e)).length
      const gens = generations(fixture)
      expect(new Set(Object.values(gens)).size, `kill ${i + 1}: files from different generations ${JSON.stringify(gens)}`).toBe(1)
    }
    const last = start({ PROVIDER_URL: server.url, FIXTURE_ROOT: root, ONCE: '1', START_GEN: '9999' })
    expect(await last.exit).toBe(0)
    expect(generations(fixture)).toEqual({ manifest: 9999, model: 9999, tools: 9999, trace: 9999 })
    expect(entries(root).filter((e) => e.includes('tmp'))).toEqual([])
    expect(existsSync(join(fixture, 'scenario.yaml'))).toBe(true)
    // how often a kill landed mid-write (the assertions above are what must hold either way)
    console.log(`kill-write: ${generationsWritten} generations written, ${leftovers} temp entries right after ${KILLS} kills`)
  })
})
