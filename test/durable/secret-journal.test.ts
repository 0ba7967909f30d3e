/**
 * Issue 13 through `durable()`: the secret corpus (14 patterns × 9 placements) journaled live with the real
 * openai SDK, and what happens when the journal refuses an entry: a named error for that step, the journal
 * intact, and never an unhandled rejection (which killed the process).
 */
import { join } from 'node:path'
import { durable, isFluxError, listJournals, type Lab } from 'fluxlab'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openaiBaseURL, startProviderServer } from '../support/index.js'
import {
  PATTERN_IDS,
  PLACEMENTS,
  captureOutput,
  cellAgent,
  fakeSecret,
  filesUnder,
  leaks,
  providerScript,
  reportCounts,
  vaultScript,
  type FakeSecret,
  type Placement,
} from '../support/secret-corpus.js'
import { tempDir, track, useEngineSandbox } from '../engine/helpers.js'

useEngineSandbox()

const unhandled: unknown[] = []
const onUnhandled = (e: unknown) => void unhandled.push(e)
beforeAll(() => void process.on('unhandledRejection', onUnhandled))
afterAll(() => void process.off('unhandledRejection', onUnhandled))

interface DurableCell {
  cell: string
  key: FakeSecret
  files: Record<string, string>
  said: string
  error?: unknown
}

describe('durable() over the secret corpus', () => {
  const runs: DurableCell[] = []

  beforeAll(async () => {
    const root = tempDir()
    const cells = PATTERN_IDS.flatMap((pattern) => PLACEMENTS.map((placement) => ({ pattern, placement })))
    const one = async (pattern: (typeof PATTERN_IDS)[number], placement: Placement): Promise<DurableCell> => {
      const key = fakeSecret(pattern)
      const dir = join(root, `${pattern}--${placement}`)
      const server = await startProviderServer({ script: vaultScript(key), delayMs: 5 })
      server.queue(...providerScript(placement, key))
      const run: DurableCell = { cell: `${pattern} × ${placement}`, key, files: {}, said: '' }
      try {
        const { outcome } = await durable(dir, cellAgent(placement, key, server, server.url))
        run.said += JSON.stringify(outcome.divergences)
      } catch (e) {
        run.error = e
        run.said += e instanceof Error ? `${e.message}\n${e.stack}` : String(e)
      } finally {
        await server.close()
      }
      run.files = filesUnder(dir)
      return run
    }
    const { output } = await captureOutput(async () => {
      for (let i = 0; i < cells.length; i += 6) runs.push(...(await Promise.all(cells.slice(i, i + 6).map((c) => one(c.pattern, c.placement)))))
    })
    for (const r of runs) r.said += output
    reportCounts('durable', {
      cells: runs.length,
      cellsLeakingToJournal: runs.filter((r) => Object.values(r.files).some((t) => leaks(t, r.key.secret))).length,
      cellsLeakingToOutputOrErrors: runs.filter((r) => leaks(r.said, r.key.secret)).length,
      runsThatThrew: runs.filter((r) => r.error).length,
      unhandledRejections: unhandled.length,
    })
  }, 240_000)

  it('journals all 126 cells to completion, with no error and no unhandled rejection', () => {
    expect(runs).toHaveLength(126)
    expect(runs.filter((r) => r.error).map((r) => `${r.cell}: ${String((r.error as Error).message).split('\n')[0]}`)).toEqual([])
    expect(unhandled).toEqual([])
    for (const r of runs) expect(Object.keys(r.files).sort(), r.cell).toEqual(['journal.jsonl', 'journal.yaml'])
  })

  it('writes no piece of any secret to a journal, stdout, stderr or an error', () => {
    const leaked = runs.flatMap((r) => [
      ...Object.entries(r.files).flatMap(([file, text]) => (leaks(text, r.key.secret) ? [`${r.cell}: ${file}`] : [])),
      ...(leaks(r.said, r.key.secret) ? [`${r.cell}: output or error`] : []),
    ])
    expect(leaked).toEqual([])
  })
})

describe('durable() when the journal refuses an entry', () => {
  /** A number under a password label: the redactor keeps numbers (a placeholder would change the type), the scan refuses it. */
  const PIN = 20240601

  async function server() {
    const ok = { method: 'POST', path: '/v1/chat/completions', status: 200, headers: { 'content-type': 'application/json' } }
    const body = JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-4o-mini',
      choices: [{ index: 0, message: { role: 'assistant', content: 'ok', refusal: null }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
    })
    const s = await startProviderServer({ script: () => ({ ...ok, body }) })
    track(s)
    return s
  }

  it('fails the model step with FLUX_CREDENTIAL_FOUND, keeps the journal, and leaves no unhandled rejection', async () => {
    const s = await server()
    const dir = join(tempDir(), 'run')
    const before = unhandled.length
    const agent = async () => {
      const client = new OpenAI({ baseURL: openaiBaseURL(s), apiKey: 'sk-test', maxRetries: 0 })
      await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
      return client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi again' }], metadata: { password: PIN } as never })
    }
    const error = await durable(dir, agent).catch((e: unknown) => e)
    await new Promise((r) => setTimeout(r, 50))
    expect(unhandled.length - before).toBe(0)
    expect(isFluxError(error, 'FLUX_CREDENTIAL_FOUND')).toBe(true)
    expect((error as Error).message).toMatch(/Failed to journal model#2: .*credential_found/)
    expect((error as Error).message).toContain('journal.jsonl:1 (labelled-secret)')
    expect((error as Error).message).not.toContain(String(PIN))
    const [session] = listJournals(dir)
    expect(session).toMatchObject({ cells: 1, intents: 2, tornTail: false, meta: { status: 'running' } })
  })

  it('fails the tool step even when the agent catches what the tool threw', async () => {
    const s = await server()
    const dir = join(tempDir(), 'run')
    const agent = async (lab: Lab) => {
      const client = new OpenAI({ baseURL: openaiBaseURL(s), apiKey: 'sk-test', maxRetries: 0 })
      await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'log in' }] })
      const login = lab.tool('login', async (_args: { user: string; password: number }) => 'welcome')
      const said = await login({ user: 'deploy', password: PIN }).catch(() => 'the tool failed, carrying on')
      return said
    }
    const error = await durable(dir, agent).catch((e: unknown) => e)
    expect(isFluxError(error, 'FLUX_CREDENTIAL_FOUND')).toBe(true)
    expect((error as Error).message).toMatch(/Failed to journal tool#1: .*credential_found/)
    expect((error as Error).message).not.toContain(String(PIN))
    expect(listJournals(dir)[0]).toMatchObject({ cells: 1, intents: 2, meta: { status: 'running' } })
  })
})
