import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { durable, isFluxError, listJournals, type Lab } from 'fluxlab'
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { loadExchanges, startProviderServer, type ProviderServer } from '../support/index.js'
import { tempDir, track, useEngineSandbox } from '../engine/helpers.js'

useEngineSandbox()

const exchanges = loadExchanges('openai-chat/test_tool_use_chain_of_two_calls.yaml')
const QUESTION = 'Can the country of Crumpet have dragons? Answer with only YES or NO'

async function provider(): Promise<ProviderServer> {
  const s = await startProviderServer({
    script: (req) => {
      const n = ((req.json as { messages?: unknown[] })?.messages ?? []).length
      return exchanges[n === 1 ? 0 : n === 3 ? 1 : 2]
    },
  })
  track(s)
  return s
}

/** The dragons agent; `stopAfterTools` throws after that many tool executions (an in-process stand-in for a crash). */
function agent(server: ProviderServer, effects: string[], opts: { stopAfterTools?: number; question?: string; apiKey?: string } = {}) {
  return async (lab: Lab) => {
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: opts.apiKey ?? 'sk-test', maxRetries: 0 })
    const run = (name: string, value: unknown) => async (_args: unknown, ctx: { toolCallId: string }) => {
      effects.push(`${name} ${ctx.toolCallId}`)
      return value
    }
    const tools = lab.tools({ lookup_population: run('lookup_population', 123124), can_have_dragons: run('can_have_dragons', true) }) as Record<
      string,
      (a: unknown, c: { toolCallId: string }) => Promise<unknown>
    >
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: opts.question ?? QUESTION }]
    for (let i = 0; i < 5; i++) {
      const r = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: false })
      const msg = r.choices[0].message
      if (!msg.tool_calls?.length) return msg.content
      messages.push(msg)
      for (const call of msg.tool_calls) {
        if (call.type !== 'function') continue
        const out = await tools[call.function.name](JSON.parse(call.function.arguments), { toolCallId: call.id })
        messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(out) })
        // An in-process stand-in for a crash: the process "dies" after this many tool results were journaled.
        if (opts.stopAfterTools !== undefined && effects.length >= opts.stopAfterTools) throw new Error('power cut')
      }
    }
    throw new Error('no answer')
  }
}

describe('durable()', () => {
  it('runs a fresh journal to completion with no resurrected report', async () => {
    const server = await provider()
    const dir = join(tempDir(), 'run-1')
    const effects: string[] = []
    const { result, resurrected, outcome } = await durable(dir, agent(server, effects))
    expect(result).toBe('YES')
    expect(resurrected).toBeUndefined()
    expect(effects).toHaveLength(2)
    expect(outcome.modelCalls).toHaveLength(3)
    expect(listJournals(join(dir, '..')).map((j) => j.meta.status)).toEqual(['complete'])
  })

  it('resumes an unfinished run: journaled results are served, only the tail runs live, and it says so', async () => {
    const server = await provider()
    const dir = join(tempDir(), 'run-2')
    const first: string[] = []
    await expect(durable(dir, agent(server, first, { stopAfterTools: 2 }))).rejects.toThrow(/power cut/)
    expect(listJournals(join(dir, '..'))[0].meta.status).toBe('running')
    const modelsBefore = server.requests.length

    const second: string[] = []
    const { result, resurrected } = await durable(dir, agent(server, second))
    expect(result).toBe('YES')
    // model#1, tool#1, model#2, tool#2 come from the journal: no tool re-runs, only model#3 goes to the provider.
    expect(resurrected).toMatchObject({ servedFromJournal: 4, ranLive: 1, inFlight: [], unanchored: [], tornTail: false })
    expect(second).toEqual([])
    expect(server.requests.length - modelsBefore).toBe(1)
  })

  it('refuses to resume under FLUX_AUTO_RESURRECT=0 and says how to resume or discard', async () => {
    const server = await provider()
    const dir = join(tempDir(), 'run-3')
    await expect(durable(dir, agent(server, [], { stopAfterTools: 1 }))).rejects.toThrow(/power cut/)
    process.env.FLUX_AUTO_RESURRECT = '0'
    try {
      const err = await durable(dir, agent(server, [])).catch((e: unknown) => e)
      expect(isFluxError(err, 'FLUX_UNFINISHED_RUN')).toBe(true)
      expect((err as Error).message).toContain('{ resume: true }')
      expect((err as Error).message).toContain(`deleting ${dir}`)
      const resumed = await durable(dir, agent(server, []), { resume: true })
      expect(resumed.resurrected?.servedFromJournal).toBeGreaterThan(0)
    } finally {
      delete process.env.FLUX_AUTO_RESURRECT
    }
  })

  it('stops with a loud divergence naming the step when the agent changed between crash and resume', async () => {
    const server = await provider()
    const dir = join(tempDir(), 'run-4')
    await expect(durable(dir, agent(server, [], { stopAfterTools: 1 }))).rejects.toThrow(/power cut/)
    const spy: string[] = []
    const err = await durable(dir, agent(server, spy, { question: 'Can Crumpet have unicorns?' })).catch((e: unknown) => e)
    expect(isFluxError(err, 'FLUX_DIVERGED')).toBe(true)
    expect((err as Error).message).toMatch(/resume durable run "run-4" at model#1/)
    expect((err as Error).message).toContain('messages[0].content')
    expect(spy).toEqual([])
  })

  it('never writes a key to the journal', async () => {
    const server = await provider()
    const dir = join(tempDir(), 'run-5')
    const key = 'sk-proj-' + 'Q7w9'.repeat(12)
    await durable(dir, agent(server, [], { apiKey: key, question: `${QUESTION} (my key is ${key})` })).catch(() => undefined)
    for (const f of readdirSync(dir)) expect(readFileSync(join(dir, f), 'utf8')).not.toContain(key)
    expect(readFileSync(join(dir, 'journal.jsonl'), 'utf8')).toContain('[REDACTED:')
  })
})

describe('fluxlab sessions --store', () => {
  it('lists journals, marks the unfinished one, and changes nothing', async () => {
    const { spawnSync } = await import('node:child_process')
    const { REPO, assertBuilt } = await import('../e2e/support/project.js')
    assertBuilt()
    const server = await provider()
    const store = tempDir()
    await durable(join(store, 'done'), agent(server, []))
    await expect(durable(join(store, 'cut'), agent(server, [], { stopAfterTools: 1 }))).rejects.toThrow(/power cut/)
    const before = readFileSync(join(store, 'cut', 'journal.jsonl'), 'utf8')
    const r = spawnSync(process.execPath, [join(REPO, 'dist/cli.js'), 'sessions', '--store', store], {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    })
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/● unfinished .*cut · 2 results journaled/)
    expect(r.stdout).toMatch(/✓ complete +.*done · 5 results journaled/)
    expect(readFileSync(join(store, 'cut', 'journal.jsonl'), 'utf8')).toBe(before)
    const json = JSON.parse(spawnSync(process.execPath, [join(REPO, 'dist/cli.js'), 'sessions', '--store', store, '--json'], { encoding: 'utf8' }).stdout)
    expect(json.sessions.map((s: { status: string }) => s.status)).toEqual(['running', 'complete'])
    const usage = spawnSync(process.execPath, [join(REPO, 'dist/cli.js'), 'sessions'], { encoding: 'utf8' })
    expect(usage.status).toBe(64)
    expect(usage.stderr).toContain('--store')
  })

  it('reads the journals with the rules the project config disables, as durable() wrote them', async () => {
    const { spawnSync } = await import('node:child_process')
    const { writeFileSync } = await import('node:fs')
    const { REPO, assertBuilt } = await import('../e2e/support/project.js')
    assertBuilt()
    const server = await provider()
    const cwd = tempDir()
    const jwt = ['eyJhbGciOiJIUzI1NiJ9', 'eyJzdWIiOiJmaXh0dXJlLXVzZXIifQ', 'c2lnbmVkLWZpeHR1cmU'].join('.')
    await durable(join(cwd, 'state', 'run'), agent(server, [], { question: `${QUESTION} (session ${jwt})` }), { redact: { disable: ['jwt'] } })
    writeFileSync(join(cwd, 'fluxlab.config.json'), JSON.stringify({ redact: { disable: ['jwt'] } }))
    const r = spawnSync(process.execPath, [join(REPO, 'dist/cli.js'), 'sessions', '--store', 'state'], {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    })
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/✓ complete +.*run · 5 results journaled/)
  })
})
