// `fluxlab record|replay <name> -- <cmd…>`: a plain Node program (the real `openai` client, a geography
// HTTP tool), no code change, recorded against the local provider server and replayed with it down.
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { parse as parseYaml } from 'yaml'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startCapitalServer, type CapitalServer } from '../e2e/support/capital-server.js'
import { loadExchanges, startProviderServer } from '../support/index.js'
import { AGENT, assertBuilt, cleanup, copyFixture, fluxlab, read, REPO, tempDir } from './support.js'

const ANSWER = 'answer: The capital of the UK is London.'
const KEY = { OPENAI_API_KEY: 'sk-cli-test' }
const CHUNKS = join(REPO, 'test/cli/fixtures/chunks.mjs')
const UNDICI = join(REPO, 'test/cli/fixtures/undici.mjs')

let server: CapitalServer
let cwd: string
let fixture: string
let recordRun: Awaited<ReturnType<typeof fluxlab>>
const hash = (f: string) => ({ text: read(f), mtime: statSync(f).mtimeMs })
const files = (dir: string) => Object.fromEntries(['scenario.yaml', 'model.jsonl', 'tools.jsonl', 'trace.snap'].map((f) => [f, hash(join(dir, f))]))

beforeAll(async () => {
  assertBuilt()
  server = await startCapitalServer()
  cwd = tempDir()
  fixture = join(cwd, 'tests/scenarios/capital')
  recordRun = await fluxlab(['record', 'capital', '--', process.execPath, AGENT], { cwd, env: { ...KEY, PROVIDER_URL: server.url } })
  await server.close()
})
afterAll(async () => {
  await server.close()
  cleanup()
})

describe.concurrent('fluxlab record', () => {
  test('records a Node program with no code change: exit 0, the whole fixture written, the provider hit', () => {
    expect(recordRun.code, recordRun.output).toBe(0)
    expect(recordRun.stdout).toContain(ANSWER)
    expect(recordRun.stderr).toContain('[fluxlab] recorded scenario "capital" into tests/scenarios/capital/ (2 model calls, 1 tool call)')
    expect(server.requests.map((r) => `${r.kind} ${r.path}`)).toEqual([
      'model /v1/chat/completions',
      'tool /geo/capital?country=UK',
      'model /v1/chat/completions',
    ])
    expect(read(join(fixture, 'trace.snap'))).toContain('final: "The capital of the UK is London."')
    const manifest = parseYaml(read(join(fixture, 'scenario.yaml')))
    expect(manifest).toMatchObject({ formatVersion: 1, name: 'capital', models: ['gpt-4o-mini-2024-07-18'], input: { command: [process.execPath, AGENT] } })
    expect(read(join(fixture, 'model.jsonl'))).not.toContain('sk-cli-test')
  })

  test('the recording passes `fluxlab test`', async () => {
    const r = await fluxlab(['test', 'capital'], { cwd })
    expect(r.code, r.output).toBe(0)
  })

  test('refuses to overwrite a fixture without FLUX_GOLDEN=update (exit 3), and nothing runs', async () => {
    const before = files(fixture)
    const r = await fluxlab(['record', 'capital', '--', process.execPath, AGENT], { cwd, env: { ...KEY, PROVIDER_URL: server.url } })
    expect(r.code).toBe(3)
    expect(r.stderr).toContain('Failed to record scenario "capital": a fixture already exists at tests/scenarios/capital')
    expect(r.stderr).toContain(`FLUX_GOLDEN=update npx fluxlab record capital -- ${process.execPath} ${AGENT}`)
    expect(r.stdout).not.toContain(ANSWER)
    expect(files(fixture)).toEqual(before)
  })

  test('FLUX_GOLDEN=update re-records against the live provider', async () => {
    const live = await startCapitalServer()
    try {
      const dir = copyFixture(fixture, tempDir(), 'tests/scenarios/capital')
      const before = parseYaml(read(join(dir, 'scenario.yaml'))).recordedAt
      const r = await fluxlab(['record', 'capital', '--', process.execPath, AGENT], {
        cwd: join(dir, '../../..'),
        env: { ...KEY, PROVIDER_URL: live.url, FLUX_GOLDEN: 'update' },
      })
      expect(r.code, r.output).toBe(0)
      expect(live.hits).toBe(3)
      expect(parseYaml(read(join(dir, 'scenario.yaml'))).recordedAt).not.toBe(before)
    } finally {
      await live.close()
    }
  })

  test('writes nothing when the program fails (exit 1)', async () => {
    const live = await startCapitalServer()
    try {
      const here = tempDir()
      const r = await fluxlab(['record', 'failing', '--', process.execPath, AGENT, '--fail'], { cwd: here, env: { ...KEY, PROVIDER_URL: live.url } })
      expect(r.code).toBe(1)
      expect(r.stderr).toContain('Failed to record scenario "failing": the program exited with code 3, so nothing was written')
      expect(existsSync(join(here, 'tests/scenarios/failing'))).toBe(false)
    } finally {
      await live.close()
    }
  })

  test('records the requests of child Node processes on the same tape', async () => {
    const live = await startCapitalServer()
    const here = tempDir()
    try {
      const r = await fluxlab(['record', 'child', '--', process.execPath, AGENT, '--tool-in-child'], { cwd: here, env: { ...KEY, PROVIDER_URL: live.url } })
      expect(r.code, r.output).toBe(0)
      expect(r.stderr).toContain('(2 model calls, 1 tool call)')
    } finally {
      await live.close()
    }
    const replay = await fluxlab(['replay', 'child', '--', process.execPath, AGENT, '--tool-in-child'], { cwd: here, env: { PROVIDER_URL: live.url } })
    expect(replay.code, replay.output).toBe(0)
    expect(replay.stdout).toContain(ANSWER)
  })
})

describe.concurrent('fluxlab replay', () => {
  test('replays with the provider down and no key: exit 0, the same answer, nothing written', async () => {
    const before = files(fixture)
    const report = join(tempDir(), 'report.json')
    const r = await fluxlab(['replay', 'capital', '--report', report, '--', process.execPath, AGENT], { cwd, env: { PROVIDER_URL: server.url } })
    expect(r.code, r.output).toBe(0)
    expect(r.stdout).toContain(ANSWER)
    expect(r.stderr).toContain('[fluxlab] replayed scenario "capital" from the tape (2 model calls, 1 tool call): hermetic, nothing reached the network')
    expect(files(fixture)).toEqual(before)
    const doc = JSON.parse(readFileSync(report, 'utf8'))
    expect(doc).toMatchObject({
      schema: 'fluxlab.run/v1',
      scenario: 'capital',
      mode: 'replay',
      exitCode: 0,
      hermetic: true,
      modelLive: 0,
      written: false,
      trace: 'matched',
      divergences: [],
    })
    expect(doc.steps.map((s: { step: string }) => s.step)).toEqual(['model#1', 'tool#1', 'model#2'])
  })

  test('exits 2 when the program changed (a third model call), naming the step', async () => {
    const before = files(fixture)
    const report = join(tempDir(), 'report.json')
    const r = await fluxlab(['replay', 'capital', '--', process.execPath, AGENT, '--extra-turn'], {
      cwd,
      env: { PROVIDER_URL: server.url, FLUX_REPORT: report },
    })
    expect(r.code, r.output).toBe(2)
    expect(r.stdout).toContain(ANSWER)
    expect(r.stderr).toContain(
      '[fluxlab] Failed to replay scenario "capital": the program left the tape at model#3 (model_index_overflow; 1 failure in all); nothing was sent to the network.',
    )
    expect(r.stderr).toContain(
      '  • model#3 model_index_overflow: the run made more model calls than the 2 recorded; closest recorded model#2: messages[3] added',
    )
    expect(r.stderr).toContain('If the change is intended, re-record: FLUX_GOLDEN=update npx fluxlab record capital --')
    expect(files(fixture)).toEqual(before)
    const doc = JSON.parse(readFileSync(report, 'utf8'))
    expect(doc).toMatchObject({ exitCode: 2, hermetic: false, divergences: [{ code: 'model_index_overflow', severity: 'failure', step: 'model#3' }] })
  })

  test('exits 2 when recorded calls are never made (the program stopped early)', async () => {
    const r = await fluxlab(['replay', 'capital', '--', process.execPath, '-e', 'console.log("no calls")'], { cwd })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('the program left the tape at model#1 (unused_interaction; 3 failures in all)')
  })

  test('exits 1 when the program itself fails while every request was on tape', async () => {
    const r = await fluxlab(['replay', 'capital', '--', process.execPath, AGENT, '--fail'], { cwd, env: { PROVIDER_URL: server.url } })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('Failed to replay scenario "capital": the program exited with code 3 while every request it made was served from the tape')
  })

  test('a missing fixture is exit 3 with the record command; a missing program is a usage error (64)', async () => {
    const r = await fluxlab(['replay', 'nope', '--', process.execPath, AGENT], { cwd })
    expect(r.code).toBe(3)
    expect(r.stderr).toContain(
      `Failed to replay scenario "nope": there is no fixture at tests/scenarios/nope. Record it first: npx fluxlab record nope -- ${process.execPath} ${AGENT}`,
    )
    const u = await fluxlab(['replay', 'capital'], { cwd })
    expect(u.code).toBe(64)
    expect(u.stderr).toContain('replay needs the program to run after `--`')
  })

  test('hands the program the recorded chunk boundaries, over fetch and node:http', async () => {
    // @note measured: at 15 ms between writes a loaded machine read the stream as 3 chunks; 50 ms keeps them apart.
    const provider = await startProviderServer({ script: loadExchanges('openai-chat/test_run_stream_sync_streams_real_model.yaml'), delayMs: 50 })
    const here = tempDir()
    const rec = await fluxlab(['record', 'chunks', '--', process.execPath, CHUNKS], { cwd: here, env: { PROVIDER_URL: provider.url } })
    await provider.close()
    expect(rec.code, rec.output).toBe(0)
    const recorded = readFileSync(join(here, 'tests/scenarios/chunks/model.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { response: { chunks: Array<{ text: string }> } }).response.chunks.map((c) => Buffer.byteLength(c.text)))
    expect(recorded[0].length, 'the recording saw the stream in several chunks (else there are no boundaries to replay)').toBeGreaterThan(2)
    const seen = JSON.parse(rec.stdout)
    expect([seen.fetch, seen.http]).toEqual(recorded)
    const rep = await fluxlab(['replay', 'chunks', '--', process.execPath, CHUNKS], { cwd: here, env: { PROVIDER_URL: provider.url } })
    expect(rep.code, rep.output).toBe(0)
    expect(JSON.parse(rep.stdout)).toEqual(seen)
  })

  test('records and replays a program that calls the npm undici package directly, with the recorded chunk boundaries', async () => {
    const streams = loadExchanges('openai-chat/test_run_stream_sync_streams_real_model.yaml')
    const provider = await startProviderServer({ script: [...streams, streams[0]], delayMs: 15 })
    const here = tempDir()
    const rec = await fluxlab(['record', 'undici', '--', process.execPath, UNDICI], { cwd: here, env: { PROVIDER_URL: provider.url } })
    const hits = provider.hits
    await provider.close()
    expect(rec.code, rec.output).toBe(0)
    expect(hits).toBe(3)
    const recorded = readFileSync(join(here, 'tests/scenarios/undici/model.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { response: { chunks: Array<{ text: string }> } }).response.chunks.map((c) => Buffer.byteLength(c.text)))
    expect(recorded).toHaveLength(3)
    const seen = JSON.parse(rec.stdout)
    expect([seen.request, seen.agent, seen.fetch]).toEqual(recorded)
    expect(recorded.map((c) => c.length > 3)).toEqual([true, true, true])
    const rep = await fluxlab(['replay', 'undici', '--', process.execPath, UNDICI], { cwd: here, env: { PROVIDER_URL: provider.url } })
    expect(rep.code, rep.output).toBe(0)
    expect(JSON.parse(rep.stdout)).toEqual(seen)
  })
})
