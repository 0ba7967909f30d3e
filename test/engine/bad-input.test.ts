/**
 * Broken fixtures and bad environment (SPEC §2, §4): each fails early with a
 * FluxError that names the file or variable and says what to do.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import OpenAI from 'openai'
import { describe, expect, test } from 'vitest'
import { isFluxError, scenario, type FluxErrorCode } from 'fluxlab'
import { openaiBaseURL, loadExchanges, type ProviderServer } from '../support/index.js'
import { readJsonl, serve, tempDir, useEngineSandbox } from './helpers.js'

useEngineSandbox()

/** A one-call agent: asks once, returns the answer. */
const askAgent = (server: ProviderServer) => async () => {
  const client = new OpenAI({ baseURL: openaiBaseURL(server), apiKey: 'sk-test', maxRetries: 0 })
  return (await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Invent a holiday.' }] })).choices[0].message.content
}

/** Record a two-call fixture at `<dir>/broken` and return its directory. */
async function recordFixture(dir: string): Promise<string> {
  const server = await serve(['openai-chat/openai-text.json', 'openai-chat/openai-text.json'])
  const out = await (await scenario('broken', { dir })).run(async () => [await askAgent(server)(), await askAgent(server)()])
  expect(out.modelCalls).toHaveLength(2)
  await server.close()
  return join(dir, 'broken')
}

/** The error `scenario()` rejects with, checked to be a FluxError with `code`. */
async function openError(dir: string, code: FluxErrorCode, name = 'broken'): Promise<string> {
  const error = await scenario(name, { dir }).then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(isFluxError(error, code), `expected ${code}, got ${String(error)}`).toBe(true)
  return (error as Error).message
}

describe('a broken fixture', () => {
  test('a malformed model.jsonl line fails with an error naming model.jsonl:2', async () => {
    const dir = tempDir()
    const fx = await recordFixture(dir)
    const lines = readFileSync(join(fx, 'model.jsonl'), 'utf8').split('\n')
    lines[1] = lines[1].slice(0, 40)
    writeFileSync(join(fx, 'model.jsonl'), lines.join('\n'))
    const message = await openError(dir, 'FLUX_FIXTURE_INVALID')
    expect(message).toContain('model.jsonl:2')
    expect(message).toContain('not valid JSON')
    expect(message).toContain('FLUX_GOLDEN=update')
  })

  test('a model.jsonl line of the wrong shape fails naming the line and the field', async () => {
    const dir = tempDir()
    const fx = await recordFixture(dir)
    const lines = readFileSync(join(fx, 'model.jsonl'), 'utf8').trimEnd().split('\n')
    lines[1] = JSON.stringify({ ...JSON.parse(lines[1]), response: { status: 200, headers: {} } })
    writeFileSync(join(fx, 'model.jsonl'), `${lines.join('\n')}\n`)
    const message = await openError(dir, 'FLUX_FIXTURE_INVALID')
    expect(message).toContain('model.jsonl:2')
    expect(message).toContain('response.chunks')
  })

  test('formatVersion 99 fails with FLUX_FORMAT_VERSION and says to upgrade fluxlab', async () => {
    const dir = tempDir()
    const fx = await recordFixture(dir)
    const manifest = readFileSync(join(fx, 'scenario.yaml'), 'utf8')
    expect(manifest).toMatch(/^formatVersion: 1$/m)
    writeFileSync(join(fx, 'scenario.yaml'), manifest.replace(/^formatVersion: 1$/m, 'formatVersion: 99'))
    const message = await openError(dir, 'FLUX_FORMAT_VERSION')
    expect(message).toContain('formatVersion is 99')
    expect(message).toContain('reads formatVersion 1')
    expect(message).toMatch(/upgrade/i)
    expect(message).toContain('npm i -D fluxlab@latest')
  })

  test('a missing model.jsonl fails naming the file', async () => {
    const dir = tempDir()
    const fx = await recordFixture(dir)
    rmSync(join(fx, 'model.jsonl'))
    const message = await openError(dir, 'FLUX_FIXTURE_INVALID')
    expect(message).toContain('model.jsonl')
    expect(message).toMatch(/missing/)
  })

  test.each([
    ['broken YAML', 'formatVersion: [1\nname: "broken', /not valid YAML/],
    ['a bare string', 'just some notes about this scenario\n', /expected a mapping/],
  ])('a scenario.yaml holding %s fails naming scenario.yaml', async (_, text, reason) => {
    const dir = tempDir()
    const fx = await recordFixture(dir)
    writeFileSync(join(fx, 'scenario.yaml'), text)
    const message = await openError(dir, 'FLUX_FIXTURE_INVALID')
    expect(message).toContain('scenario.yaml')
    expect(message).toMatch(reason)
  })
})

describe('the environment', () => {
  test.each(['1', 'true'])('a missing fixture under CI=%s fails with FLUX_NO_RECORDING and the command that records it', async (ci) => {
    process.env.CI = ci
    const server = await serve(['openai-chat/openai-text.json'])
    const dir = tempDir()
    const message = await openError(dir, 'FLUX_NO_RECORDING', 'absent')
    expect(message).toContain('scenario "absent"')
    expect(message).toContain('FLUX_GOLDEN=update npx vitest run')
    expect(server.hits).toBe(0)
    expect(readdirSync(dir)).toEqual([])
  })

  test('FLUX_GOLDEN=bogus fails listing the valid values', async () => {
    process.env.FLUX_GOLDEN = 'bogus'
    const message = await openError(tempDir(), 'FLUX_BAD_CONFIG', 'any')
    expect(message).toContain('FLUX_GOLDEN')
    expect(message).toContain('"bogus"')
    expect(message).toContain('update, snapshots, judge')
  })

  test('FLUX_OFFLINE=1 with no fixture fails before any request and writes nothing', async () => {
    process.env.FLUX_OFFLINE = '1'
    const server = await serve(['openai-chat/openai-text.json'])
    const dir = tempDir()
    const message = await openError(dir, 'FLUX_OFFLINE', 'absent')
    expect(message).toContain('FLUX_OFFLINE')
    expect(server.hits).toBe(0)
    expect(readdirSync(dir)).toEqual([])
    expect(existsSync(join(dir, 'absent'))).toBe(false)
  })

  test('FLUX_OFFLINE=1 still replays an existing fixture, but refuses to re-record it', async () => {
    const dir = tempDir()
    await recordFixture(dir)
    process.env.FLUX_OFFLINE = '1'
    const out = await (await scenario('broken', { dir })).run(async () => {
      const server = { url: 'http://127.0.0.1:9' } as ProviderServer
      return [await askAgent(server)(), await askAgent(server)()]
    })
    expect(out.hermetic).toBe(true)
    expect(out.result[0]?.startsWith('**Holiday Name:** Galaxy Day')).toBe(true)
    process.env.FLUX_GOLDEN = 'update'
    const message = await openError(dir, 'FLUX_OFFLINE')
    expect(message).toContain('FLUX_GOLDEN=update')
  })

  test('FLUX_GOLDEN=update re-records an existing fixture, even under CI', async () => {
    const dir = tempDir()
    const first = await serve(['openai-chat/openai-text.json'])
    await (await scenario('rebase', { dir })).run(askAgent(first))
    expect(readJsonl(join(dir, 'rebase', 'model.jsonl')).map((c) => c.usage.output)).toEqual([363])

    process.env.CI = 'true'
    process.env.FLUX_GOLDEN = 'update'
    const second = await serve([loadExchanges('openai-chat/test_tool_use_chain_of_two_calls.yaml')[2]])
    const s = await scenario('rebase', { dir })
    expect(s.mode).toBe('record')
    const rerecorded = await s.run(askAgent(second))
    expect(rerecorded.result).toBe('YES')
    expect(second.hits).toBe(1)
    const cells = readJsonl(join(dir, 'rebase', 'model.jsonl'))
    expect(cells.map((c) => [c.text, c.usage.input, c.usage.output])).toEqual([['YES', 146, 3]])
    expect(readdirSync(join(dir, 'rebase')).filter((f) => f.endsWith('.tmp'))).toEqual([])

    delete process.env.FLUX_GOLDEN
    await second.close()
    const replayed = await (await scenario('rebase', { dir })).run(askAgent(second))
    expect(replayed.mode).toBe('replay')
    expect(replayed.result).toBe('YES')
    expect(replayed.hermetic).toBe(true)
  })
})
