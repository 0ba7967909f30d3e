/**
 * Issue 28 item 4, SPEC §3 `normalize`: rules rewrite the canonical request before it is keyed (a date, a uuid, a
 * model's date suffix that changes every run), so the replay matches exactly; they never touch what is sent, the
 * stored response or what the agent receives, unlike a `redact.replace` rule. A drift they would absorb says so.
 */
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { scenario, type ScenarioOptions } from 'fluxlab'
import { verifyFixture } from '../../src/cli/verify.js'
import { tempDir, track, useEngineSandbox } from './helpers.js'

useEngineSandbox()

/** An OpenAI-style chat server whose answer echoes the prompt and the model: what `redact.replace` used to eat. */
async function echoServer() {
  const seen: string[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString('utf8')))
    req.on('end', () => {
      seen.push(body)
      const { model, messages } = JSON.parse(body) as { model: string; messages: Array<{ content: string }> }
      const content = `You said: ${messages[0].content}\nThat is all.`
      const answer = {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      }
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ ...answer, usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 } }))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`
  track({ close: () => new Promise<void>((r) => server.close(() => r())) })
  return { host, seen }
}

/** One chat call with this prompt and model; the agent returns what it was answered. */
const ask =
  (host: string, prompt: string, model = 'gpt-4o-mini') =>
  async () => {
    const res = await fetch(`http://${host}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: prompt }] }),
    })
    return ((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0].message.content
  }

const prompt = (date: string, id: string) => `Today is ${date}. Request ${id}. Say hi.`
const YESTERDAY = prompt('2026-12-02T15:30:00.123Z', '0b9c1b7e-3f4a-4d2b-9a8e-1c2d3e4f5a6b')
const TODAY = prompt('2026-12-03T09:05:11.987Z', '7f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f')

async function recordThen(options: ScenarioOptions, recorded: () => Promise<string>, replayed: () => Promise<string>, more: ScenarioOptions = {}) {
  const dir = tempDir()
  const first = await (await scenario('echo', { dir, ...options })).run(recorded)
  expect(first.mode).toBe('record')
  const again = await (await scenario('echo', { dir, ...options, ...more })).run(replayed)
  expect(again.mode).toBe('replay')
  const cells = readFileSync(join(dir, 'echo/model.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
  return { dir: join(dir, 'echo'), first, again, cells, manifest: readFileSync(join(dir, 'echo/scenario.yaml'), 'utf8') }
}

describe('normalize', () => {
  test("a prompt with today's date and a uuid replays exactly under ['iso-dates', 'uuids'], and the answer that echoes it is the recorded one, byte for byte", async () => {
    const { host, seen } = await echoServer()
    const opts: ScenarioOptions = { hosts: { [host]: 'openai-chat' }, normalize: ['iso-dates', 'uuids'] }
    const { first, again, cells, manifest } = await recordThen(opts, ask(host, YESTERDAY), ask(host, TODAY))
    expect(again.divergences).toEqual([])
    expect(seen).toHaveLength(1)
    // what was sent live is what the agent wrote; what the agent gets on replay is what the server answered
    expect(JSON.parse(seen[0]).messages[0].content).toBe(YESTERDAY)
    expect(first.result).toBe(`You said: ${YESTERDAY}\nThat is all.`)
    expect(again.result).toBe(first.result)
    // the fixture stores the normalized request, and the response as answered
    expect(cells[0].request.body.messages[0].content).toBe('Today is <datetime>. Request <uuid>. Say hi.')
    expect(cells[0].response.chunks.map((c: { text: string }) => c.text).join('')).toContain(YESTERDAY)
    expect(manifest).toMatch(/^normalize: v1:[0-9a-f]{8}$/m)
  })

  test('without it, the same replay drifts, and the drift names the rule that would absorb it', async () => {
    const { host } = await echoServer()
    const onlyDate = prompt('2026-12-03', '0b9c1b7e-3f4a-4d2b-9a8e-1c2d3e4f5a6b')
    const { again, manifest } = await recordThen(
      { hosts: { [host]: 'openai-chat' } },
      ask(host, YESTERDAY.replace('2026-12-02T15:30:00.123Z', '2026-12-02')),
      ask(host, onlyDate),
    )
    expect(again.divergences.map((d) => d.code)).toEqual(['model_request_drift'])
    expect(again.divergences[0].message).toContain("; the normalize rule 'iso-dates' would absorb this difference: fluxlab({ normalize: ['iso-dates'] })")
    expect(manifest).not.toMatch(/^normalize:/m)
    const both = await recordThen({ hosts: { [host]: 'openai-chat' } }, ask(host, YESTERDAY), ask(host, TODAY))
    expect(both.again.divergences[0].message).toContain(
      "the normalize rules 'iso-dates', 'uuids' would absorb this difference: fluxlab({ normalize: ['iso-dates', 'uuids'] })",
    )
  })

  test('a redact.replace rule rewrites the echoed answer on replay; the normalize rule does not', async () => {
    const { host } = await echoServer()
    const live = `You said: ${YESTERDAY}\nThat is all.`
    const redact = await recordThen(
      { hosts: { [host]: 'openai-chat' }, redact: { replace: [{ pattern: /Today is [^\n]*/g, with: 'Today is <x>' }] } },
      ask(host, YESTERDAY),
      ask(host, TODAY),
    )
    expect(redact.again.result).toBe('You said: Today is <x>\nThat is all.')
    expect(redact.again.result).not.toBe(live)
    const normalize = await recordThen(
      { hosts: { [host]: 'openai-chat' }, normalize: [{ pattern: /Today is [^\n]*/g, replace: 'Today is <x>' }] },
      ask(host, YESTERDAY),
      ask(host, TODAY),
    )
    expect(normalize.again.divergences).toEqual([])
    expect(normalize.again.result).toBe(live)
    expect(normalize.cells[0].request.body.messages[0].content).toBe('Today is <x>')
  })

  test("'model-dates' keys gpt-4o-2024-08-06 as gpt-4o-<date>, and the cell keeps the model that answered", async () => {
    const { host } = await echoServer()
    const opts: ScenarioOptions = { hosts: { [host]: 'openai-chat' }, normalize: ['model-dates'] }
    const { again, cells, manifest } = await recordThen(opts, ask(host, 'hi', 'gpt-4o-2024-08-06'), ask(host, 'hi', 'gpt-4o-2024-11-20'))
    expect(again.divergences).toEqual([])
    expect(cells[0].request.body.model).toBe('gpt-4o-<date>')
    expect(cells[0].model).toBe('gpt-4o-2024-08-06')
    expect(manifest).toContain('gpt-4o-2024-08-06')
  })

  test('a custom rule (a literal string, a RegExp) keys its matches alike', async () => {
    const { host } = await echoServer()
    const opts: ScenarioOptions = {
      hosts: { [host]: 'openai-chat' },
      normalize: [
        { pattern: 'build #', replace: 'build ' },
        { pattern: /run-\d+/g, replace: 'run-<n>' },
      ],
    }
    const { again, cells } = await recordThen(opts, ask(host, 'build #1 in run-41 and run-42'), ask(host, 'build 1 in run-7 and run-8'))
    expect(again.divergences).toEqual([])
    expect(cells[0].request.body.messages[0].content).toBe('build 1 in run-<n> and run-<n>')
  })

  test("a replay under other normalize rules than the fixture's says so, once, as redaction_mismatch", async () => {
    const { host } = await echoServer()
    const { again } = await recordThen({ hosts: { [host]: 'openai-chat' }, normalize: ['uuids'] }, ask(host, YESTERDAY), ask(host, YESTERDAY), {
      normalize: ['uuids', 'iso-dates'],
    })
    const mismatch = again.failures.filter((d) => d.code === 'redaction_mismatch')
    expect(mismatch).toHaveLength(1)
    expect(mismatch[0].message).toMatch(
      /^the fixture's requests were normalized with v1:[0-9a-f]{8}, today's normalize rules are v1:[0-9a-f]{8} \(\["uuids","iso-dates"\]\); re-record/,
    )
  })

  test('`fluxlab test` checks the marker against the rules fluxlab.config names, and passes the fixture under its own', async () => {
    const { host } = await echoServer()
    const { dir } = await recordThen({ hosts: { [host]: 'openai-chat' }, normalize: ['iso-dates', 'uuids'] }, ask(host, YESTERDAY), ask(host, TODAY))
    expect(verifyFixture(dir, { normalize: ['iso-dates', 'uuids'] }).problems).toEqual([])
    const without = verifyFixture(dir, {}).problems
    expect(without.map((p) => [p.code, p.line])).toEqual([['redaction_mismatch', expect.any(Number)]])
    expect(without[0].message).toMatch(/^the fixture's requests were normalized under v1:[0-9a-f]{8}, today's rules give none\. Re-record it/)
  })
})
