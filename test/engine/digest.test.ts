/**
 * Every served byte is bound (issue 28, SPEC §4): a cell stores the digest of what replay serves from it, so a hand
 * edit of a served byte fails the replay with digest_mismatch naming file and line, never a silent serve.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import OpenAI from 'openai'
import { describe, expect, test } from 'vitest'
import { scenario, type Lab } from 'fluxlab'
import { openaiBaseURL, type ProviderServer } from '../support/index.js'
import { readJsonl, serve, startWeatherServer, tempDir, useEngineSandbox, type TinyServer } from './helpers.js'

useEngineSandbox()

/** A streaming OpenAI chat agent that calls a weather API (plain HTTP) and an in-process tool between its two model calls. */
const agent = (server: ProviderServer, weather: TinyServer) => async (lab: Lab) => {
  const client = new OpenAI({ baseURL: openaiBaseURL(server), apiKey: 'sk-test', maxRetries: 0 })
  const tools = lab.tools({ units: async (_args: object) => ({ unit: 'celsius', scale: 1 }) })
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is 1231 * 2331?' }]
  let forecast = ''
  let units: unknown
  for (let i = 0; i < 2; i++) {
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true, stream_options: { include_usage: true } })
    for await (const chunk of stream) void chunk
    if (i === 0) {
      forecast = await (await fetch(`${weather.url}/weather?city=Paris`)).text()
      units = await tools.units({})
      messages.push({ role: 'user', content: `weather: ${forecast}` })
    }
  }
  return { forecast, units }
}

/** Record the weather scenario, close both servers, and return how to replay it. */
async function recorded() {
  const server = await serve(['openai-chat/test_tool_use_basic.yaml'])
  const weather = await startWeatherServer()
  const dir = tempDir()
  const run = agent(server, weather)
  await (await scenario('weather', { dir })).run(run)
  await server.close()
  await weather.close()
  const fx = join(dir, 'weather')
  return { fx, replay: async () => (await scenario('weather', { dir })).run(run) }
}

/** Replace text in line `line` of `file` (throws when the line does not hold it). */
function editLine(file: string, line: number, from: string, to: string): void {
  const lines = readFileSync(file, 'utf8').split('\n')
  if (!lines[line - 1].includes(from)) throw new Error(`${file}:${line} has no ${from}`)
  lines[line - 1] = lines[line - 1].replace(from, to)
  writeFileSync(file, lines.join('\n'))
}

async function failure(run: () => Promise<unknown>): Promise<string> {
  try {
    const out = await run()
    return `served: ${JSON.stringify((out as { result?: unknown }).result)}`
  } catch (e) {
    return String((e as Error).message)
  }
}

describe('a cell digest', () => {
  test('is written on every cell: model, http tool, fn tool', async () => {
    const { fx } = await recorded()
    const cells = [...readJsonl(join(fx, 'model.jsonl')), ...readJsonl(join(fx, 'tools.jsonl'))]
    expect(cells).toHaveLength(4)
    for (const c of cells) expect(c.digest).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(readFileSync(join(fx, 'tools.jsonl'), 'utf8')).toContain('"digest":"sha256:')
  })

  test('an http tool body edited by hand ("sky":"clear" → "rainy") fails the replay with digest_mismatch, file and line', async () => {
    const { fx, replay } = await recorded()
    editLine(join(fx, 'tools.jsonl'), 1, '\\"sky\\":\\"clear\\"', '\\"sky\\":\\"rainy\\"')
    const message = await failure(replay)
    expect(message).toContain('FLUX_FIXTURE_INVALID')
    expect(message).toContain('digest_mismatch')
    expect(message).toMatch(/weather[\\/]tools\.jsonl:1\b/)
    expect(message).toContain('npx fluxlab test --accept weather')
  })

  test('an http tool response emptied by hand ("chunks":[]) fails the replay with digest_mismatch', async () => {
    const { fx, replay } = await recorded()
    const file = join(fx, 'tools.jsonl')
    const lines = readFileSync(file, 'utf8').split('\n')
    lines[0] = lines[0].replace(/"chunks":\[[^\]]*\]/, '"chunks":[]')
    writeFileSync(file, lines.join('\n'))
    const message = await failure(replay)
    expect(message).toContain('digest_mismatch')
    expect(message).toMatch(/tools\.jsonl:1\b/)
  })

  test('an fn tool output and a model response header edited by hand fail the replay too', async () => {
    const { fx, replay } = await recorded()
    editLine(join(fx, 'tools.jsonl'), 2, '"unit":"celsius"', '"unit":"kelvin"')
    expect(await failure(replay)).toMatch(/tools\.jsonl:2: digest_mismatch/)
    editLine(join(fx, 'tools.jsonl'), 2, '"unit":"kelvin"', '"unit":"celsius"')
    editLine(
      join(fx, 'model.jsonl'),
      2,
      '"content-type":"text/event-stream; charset=utf-8"',
      '"content-type":"text/event-stream; charset=utf-8","x-edited":"1"',
    )
    const message = await failure(replay)
    expect(message).toContain('digest_mismatch')
    expect(message).toMatch(/model\.jsonl:2\b/)
  })

  test('a fixture without digests (recorded before them) still replays, unchecked', async () => {
    const { fx, replay } = await recorded()
    for (const f of ['model.jsonl', 'tools.jsonl'])
      writeFileSync(join(fx, f), readFileSync(join(fx, f), 'utf8').replace(/"digest":"sha256:[0-9a-f]{64}",/g, ''))
    expect(readFileSync(join(fx, 'tools.jsonl'), 'utf8')).not.toContain('digest')
    const out = await replay()
    expect(out.result).toEqual({ forecast: '{"city":"Paris","tempC":18,"sky":"clear"}', units: { unit: 'celsius', scale: 1 } })
    expect(out.divergences).toEqual([])
  })
})
