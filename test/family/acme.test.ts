/**
 * Issue 40: a provider family is its folder and one registry line. The acme family lives in test code only
 * (test/family/acme/), is registered with `registerFamily`, and is recorded through a real HTTP client (`fetch`)
 * against a local acme server on 127.0.0.1, then replayed with the server closed. docs/adding-a-provider.md is this
 * test in prose.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { priceFor, readFixture, registerFamily, scenario, type Lab } from 'fluxlab'
import { acmeCodec } from './acme/index.js'
import { readJsonl, tempDir, track, useEngineSandbox } from '../engine/helpers.js'

useEngineSandbox()

/** The acme API on 127.0.0.1: a tool call first (with an id it mints anew every time), then the answer to its result. */
async function startAcme(): Promise<{ url: string; hits: number; close(): Promise<void> }> {
  let hits = 0
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString('utf8')))
    req.on('end', () => {
      hits++
      const { results } = JSON.parse(body) as { results?: Array<{ id: string; output: string }> }
      const answer = results?.length
        ? { id: `gen_${hits}`, model: 'acme-large-202611', text: `It is ${results[0].output}.`, usage: { input: 30, output: 6 } }
        : {
            id: `gen_${hits}`,
            model: 'acme-large-202611',
            text: '',
            call: { id: `acmecall_${Math.random().toString(36).slice(2, 12)}`, name: 'weather', args: { city: 'Paris' } },
            usage: { input: 20, output: 9 },
          }
      // @note the API echoes the caller's key header: a family's sensitive header is never kept in a fixture.
      res
        .writeHead(200, { 'content-type': 'application/json', 'x-acme-key': String(req.headers['x-acme-key']), 'x-request-id': `req-${hits}` })
        .end(JSON.stringify(answer))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const acme = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get hits() {
      return hits
    },
    close: () => new Promise<void>((r) => (server.listening ? (server.close(() => r()), server.closeAllConnections()) : r())),
  }
  track(acme)
  return acme
}

/** The agent: asks acme, runs the tool it asks for, and sends the result back with the id acme minted. */
async function agent(base: string, lab: Lab): Promise<{ text: string; key: string | undefined }> {
  const weather = lab.tool('weather', async ({ city }: { city: string }) => (city === 'Paris' ? 'sunny in Paris' : 'unknown'))
  const key = process.env.ACME_API_KEY
  const post = async (body: unknown) => {
    const res = await fetch(`${base}/v1/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-acme-key': key ?? '' },
      body: JSON.stringify(body),
    })
    return (await res.json()) as { text: string; call?: { id: string; name: string; args: { city: string } } }
  }
  const ask = { model: 'acme-large-202611', system: 'Be brief.', prompt: 'Weather in Paris?', tools: [{ name: 'weather' }] }
  const first = await post(ask)
  const output = await weather(first.call!.args)
  const second = await post({ ...ask, results: [{ id: first.call!.id, output }] })
  return { text: second.text, key }
}

describe('a provider family registered in test code (acme)', () => {
  let unregister: () => void
  beforeAll(() => {
    unregister = registerFamily(acmeCodec)
  })
  afterAll(() => unregister())

  test('records through fetch against a local server and replays offline, with every family fact applied', async () => {
    const acme = await startAcme()
    const dir = tempDir()
    const run = (lab: Lab) => agent(acme.url, lab)
    process.env.ACME_API_KEY = 'acme-live-key-0123456789abcdef'
    const first = await scenario('acme-weather', { dir })
    expect(first.mode).toBe('record')
    const recorded = await first.run(run).finally(() => delete process.env.ACME_API_KEY)
    expect(acme.hits).toBe(2)
    await acme.close()
    // offline, with no key set: the run fills the placeholder of the variable the recording's requests carried
    process.env.FLUX_OFFLINE = '1'
    const second = await scenario('acme-weather', { dir })
    expect(second.mode).toBe('replay')
    const replayed = await second.run(run)
    const rr = { recorded, replayed, fixture: join(dir, 'acme-weather') }
    expect(acme.hits).toBe(2)
    expect(rr.recorded.result.text).toBe('It is sunny in Paris.')
    expect(rr.replayed.result.text).toBe('It is sunny in Paris.')
    expect(rr.replayed.hermetic).toBe(true)
    expect(rr.replayed.divergences).toEqual([])

    // the cells name the family, and the fixture reads back valid (cell-fields.ts once kept its own list and refused it)
    const cells = readJsonl(join(rr.fixture, 'model.jsonl'))
    expect(cells.map((c) => c.family)).toEqual(['acme', 'acme'])
    expect(readFixture(rr.fixture).model).toHaveLength(2)
    // minted ids: the id acme minted is numbered in the canonical request that echoes it
    expect(cells[1].request.body.results).toEqual([{ id: 'acmecall_<1>', output: 'sunny in Paris' }])
    // sensitive headers: the key acme echoed is not kept; other headers are
    expect(cells[0].response.headers['x-acme-key']).toBeUndefined()
    expect(cells[0].response.headers['x-request-id']).toBe('req-1')
    expect(readFileSync(join(rr.fixture, 'model.jsonl'), 'utf8')).not.toContain('acme-live-key')
    // key variables and prefix: the manifest names ACME_API_KEY, and the replay's placeholder starts with acme's prefix
    expect(readFileSync(join(rr.fixture, 'scenario.yaml'), 'utf8')).toMatch(/keyVars:\n\s+- ACME_API_KEY/)
    expect(rr.replayed.result.key).toBe('acme-fluxlab-replay-no-key-ACME_API_KEY')
    // model ids: a snapshot id finds the price of the id without its suffix
    expect(rr.replayed.cost({ 'acme-large': { input: 1, output: 2 } }).total).toBeCloseTo((50 * 1 + 15 * 2) / 1e6)

    // unregistered, its calls are no model calls, and its sensitive header is no longer part of the redaction rules
    unregister()
    try {
      const again = await scenario('acme-weather', { dir })
      const error = await again.run(run).then(
        () => undefined,
        (e: unknown) => String(e),
      )
      expect(error).toMatch(/FLUX_DIVERGED/)
      expect(error).toMatch(/scenario\.yaml redaction_mismatch/)
      expect(error).toMatch(/model#1 unused_interaction/)
    } finally {
      unregister = registerFamily(acmeCodec)
    }
  })

  test('once unregistered, its suffix rule and its cells are no longer known', async () => {
    const price = { 'acme-large': { input: 1, output: 2 } }
    expect(priceFor('acme-large-202611', price)).toEqual(price['acme-large'])
    unregister()
    try {
      expect(priceFor('acme-large-202611', price)).toBeUndefined()
    } finally {
      unregister = registerFamily(acmeCodec)
    }
  })
})
