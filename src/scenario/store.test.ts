// The scenario layer over an in-memory fixture store (issue 40 item 3): record → replay → divergence, with no file
// written. The agent talks to a local provider (a model endpoint and a weather tool) that logs what reaches it.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { useFixtureStore } from '../store/current.js'
import { memoryStore } from '../store/memory.js'
import { scenario } from './scenario.js'
import { useTestProvider } from './utils/test-provider.js'

const ROOT = '/virtual-fluxlab/scenarios'
const provider = useTestProvider()
const { hits, agent, streamingAgent } = provider

const text = (file: string) => {
  const bytes = provider.store.readFile(join(ROOT, file))
  return bytes && Buffer.from(bytes).toString('utf8')
}

describe('a scenario over an in-memory store', () => {
  test('records into the store: its files are there and none on disk', async () => {
    const s = await scenario('weather', { dir: ROOT })
    expect(s.mode).toBe('record')
    const out = await s.run(() => agent('Weather in Oslo?', ['Oslo']))
    expect(out.result).toBe('You asked: Weather in Oslo? | snow')
    expect(hits).toEqual(['POST /v1/chat/completions', 'GET /weather?city=Oslo'])
    expect(text('weather/scenario.yaml')).toMatch(/^name: weather$/m)
    expect(text('weather/model.jsonl')?.trim().split('\n')).toHaveLength(1)
    expect(text('weather/tools.jsonl')).toContain(`"url":"${provider.url}/weather?city=Oslo"`)
    expect(existsSync(ROOT)).toBe(false)
  })

  test('replays from the store: the same result, and no request reaches the provider', async () => {
    await (await scenario('weather', { dir: ROOT })).run(() => agent('Weather in Oslo?', ['Oslo']))
    hits.length = 0
    process.env.FLUX_OFFLINE = '1'
    const s = await scenario('weather', { dir: ROOT })
    expect(s.mode).toBe('replay')
    const out = await s.run(() => agent('Weather in Oslo?', ['Oslo']))
    expect(out.result).toBe('You asked: Weather in Oslo? | snow')
    expect(out.hermetic).toBe(true)
    expect(hits).toEqual([])
  })

  test('a replay whose request differs from the recording is served by position, with a drift that names the change', async () => {
    await (await scenario('weather', { dir: ROOT })).run(() => agent('Weather in Oslo?'))
    process.env.FLUX_OFFLINE = '1'
    const s = await scenario('weather', { dir: ROOT })
    const out = await s.run(() => agent('Weather in Rome?'))
    expect(out.result).toBe('You asked: Weather in Oslo?')
    expect(out.divergences.map((d) => [d.code, d.severity, d.step])).toEqual([['model_request_drift', 'warning', 'model#1']])
    expect(out.divergences[0].diff).toEqual([{ path: 'messages[0].content', kind: 'changed', recorded: 'Weather in Oslo?', actual: 'Weather in Rome?' }])
    expect(out.failures).toEqual([])
    expect(hits.filter((h) => h.startsWith('POST'))).toHaveLength(1)
  })

  test('a recorded call the replay never makes is a failure of its outcome', async () => {
    await (await scenario('weather', { dir: ROOT })).run(() => agent('Weather?', ['Oslo', 'Rome']))
    process.env.FLUX_OFFLINE = '1'
    const out = await (await scenario('weather', { dir: ROOT })).run(() => agent('Weather?', ['Oslo']))
    expect(out.result).toBe('You asked: Weather? | snow')
    expect(out.failures.map((d) => [d.code, d.step])).toEqual([['unused_interaction', 'tool#2']])
    expect(out.failures[0].message).toMatch(/^recorded tool#2 GET 127\.0\.0\.1:\d+\/weather was never called$/)
  })

  test('a cell edited in the store is refused when replay would serve it (digest_mismatch)', async () => {
    await (await scenario('weather', { dir: ROOT })).run(() => agent('Weather in Oslo?'))
    const file = join(ROOT, 'weather/model.jsonl')
    provider.store.writeFile(file, text('weather/model.jsonl')!.replace('You asked:', 'You said:'))
    process.env.FLUX_OFFLINE = '1'
    const err = await (await scenario('weather', { dir: ROOT }))
      .run(() => agent('Weather in Oslo?'))
      .then(
        () => undefined,
        (e: Error) => e,
      )
    expect(err?.message).toMatch(/digest_mismatch/)
  })

  test('a re-record replaces the fixture whole: the tool calls it no longer makes are gone, and replay reads the new one', async () => {
    await (await scenario('weather', { dir: ROOT })).run(() => agent('Weather in Oslo?', ['Oslo']))
    process.env.FLUX_OFFLINE = '1'
    await (await scenario('weather', { dir: ROOT })).run(() => agent('Weather in Oslo?', ['Oslo']))
    delete process.env.FLUX_OFFLINE
    process.env.FLUX_GOLDEN = 'update'
    const again = await scenario('weather', { dir: ROOT })
    expect(again.mode).toBe('record')
    await again.run(() => agent('Weather in Rome?'))
    expect(text('weather/tools.jsonl')).toBeUndefined()
    delete process.env.FLUX_GOLDEN
    process.env.FLUX_OFFLINE = '1'
    const out = await (await scenario('weather', { dir: ROOT })).run(() => agent('Weather in Rome?'))
    expect(out.result).toBe('You asked: Weather in Rome?')
  })

  test('a fixture is read from the store in use: another store at the same path has none, so it records', async () => {
    await (await scenario('weather', { dir: ROOT })).run(() => agent('Weather in Oslo?'))
    expect((await scenario('weather', { dir: ROOT })).mode).toBe('replay')
    const undo = useFixtureStore(memoryStore())
    try {
      expect((await scenario('weather', { dir: ROOT })).mode).toBe('record')
    } finally {
      undo()
    }
  })

  test('under CI a missing fixture is refused, and nothing is written', async () => {
    process.env.CI = '1'
    const err = await scenario('weather', { dir: ROOT }).then(
      () => undefined,
      (e: Error) => e,
    )
    expect(err?.message).toMatch(/FLUX_/)
    expect(provider.store.files.size).toBe(0)
    expect(hits).toEqual([])
  })

  test('a streamed answer is replayed from the store byte for byte', async () => {
    const recorded = await (await scenario('stream', { dir: ROOT })).run(() => streamingAgent('Weather in Oslo?'))
    expect(recorded.result).toContain('data: [DONE]')
    expect(recorded.text).toBe('You asked: Weather in Oslo? ')
    process.env.FLUX_OFFLINE = '1'
    const replayed = await (await scenario('stream', { dir: ROOT })).run(() => streamingAgent('Weather in Oslo?'))
    expect(replayed.result).toBe(recorded.result)
    expect(hits).toEqual(['POST /v1/chat/completions'])
  })

  test('s.replay() builds the outcome from the fixture in the store alone', async () => {
    await (await scenario('weather', { dir: ROOT })).run(() => agent('Weather in Oslo?', ['Oslo']))
    hits.length = 0
    const out = await (await scenario('weather', { dir: ROOT })).replay()
    expect(out.modelCalls.map((c) => c.text)).toEqual(['You asked: Weather in Oslo?'])
    expect(out.calls.map((c) => c.name)).toEqual([expect.stringMatching(/^GET 127\.0\.0\.1:\d+\/weather$/)])
    expect(hits).toEqual([])
  })

  test('every scenario() of an unchanged fixture is handed the same checked, frozen read', async () => {
    await (await scenario('weather', { dir: ROOT })).run(() => agent('Weather in Oslo?', ['Oslo']))
    const a = (await scenario('weather', { dir: ROOT })).fixture!
    const b = (await scenario('weather', { dir: ROOT })).fixture!
    expect(b).toBe(a)
    expect(Object.isFrozen(a.model[0].response)).toBe(true)
    provider.store.writeFile(join(ROOT, 'weather/trace.snap'), 'edited\n')
    expect((await scenario('weather', { dir: ROOT })).fixture).not.toBe(a)
  })

  test('a fault injected at the tool step is served in its place, the model call before it from the store, which it leaves as it was', async () => {
    await (await scenario('weather', { dir: ROOT })).run(() => agent('Weather in Oslo?', ['Oslo']))
    hits.length = 0
    const tools = text('weather/tools.jsonl')
    const s = await scenario('weather', { dir: ROOT })
    const out = await s.injectAt('tool#1', { output: { sky: 'hail' } }).run(() => agent('Weather in Oslo?', ['Oslo']))
    expect(out.result).toBe('You asked: Weather in Oslo? | hail')
    expect(text('weather/tools.jsonl')).toBe(tools)
    expect(hits).toEqual([])
  })
})
