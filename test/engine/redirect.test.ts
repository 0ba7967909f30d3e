/**
 * A redirect while recording reaches the client as it would without fluxlab: `node:http` never follows one (the
 * client, or a library such as follow-redirects, sees the 3xx and decides), and `fetch` does what its `redirect`
 * mode says. fluxlab sends the live request with the pre-interception fetch, which follows redirects by default,
 * so it must send it with the mode the client's request asked for. Each answer is recorded as it came, and the
 * replay gives the client the same statuses with the server down.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { expect, test } from 'vitest'
import type { ProviderServer } from '../support/provider-server.js'
import { fetchChunks, httpChunks, recordThenReplay, readJsonl, useEngineSandbox } from './helpers.js'

useEngineSandbox()

/** GET /old answers 302 to /new; GET /new answers 200. */
async function redirectingServer(): Promise<ProviderServer & { url: string }> {
  let hits = 0
  const server: Server = createServer((req, res) => {
    hits++
    if (req.url === '/old') res.writeHead(302, { location: '/new', 'content-type': 'text/plain' }).end('moved')
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ at: req.url }))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const { port } = server.address() as AddressInfo
  let closed = false
  return {
    url: `http://127.0.0.1:${port}`,
    get hits() {
      return hits
    },
    close: async () => {
      if (closed) return
      closed = true
      await new Promise<void>((r) => {
        server.close(() => r())
        server.closeAllConnections()
      })
    },
  } as unknown as ProviderServer & { url: string }
}

/** The statuses of the responses stored in a fixture's tools.jsonl, in order. */
const storedStatuses = (fixture: string): number[] => readJsonl<{ response?: { status: number } }>(`${fixture}/tools.jsonl`).map((c) => c.response?.status ?? 0)

test('node:http gets the 302 itself, recorded and replayed, as it does without fluxlab', async () => {
  const server = await redirectingServer()
  const { recorded, replayed, fixture, replayHits } = await recordThenReplay('redirect-http', server, async () => {
    const r = await httpChunks(`${server.url}/old`)
    return { status: r.status, location: r.headers.location, text: r.text }
  })
  expect(recorded.result).toEqual({ status: 302, location: '/new', text: 'moved' })
  expect(replayed.result).toEqual(recorded.result)
  expect(storedStatuses(fixture)).toEqual([302])
  expect(replayHits).toBe(0)
})

test("fetch with redirect: 'manual' gets the 302 (a POST, whose live copy is rebuilt with its body); with the default it follows; both replay so", async () => {
  const server = await redirectingServer()
  const { recorded, replayed, fixture, replayHits } = await recordThenReplay('redirect-fetch', server, async () => {
    const manual = await fetchChunks(`${server.url}/old`, {
      method: 'POST',
      body: '{"q":1}',
      headers: { 'content-type': 'application/json' },
      redirect: 'manual',
    })
    const followed = await fetchChunks(`${server.url}/old`)
    return { manual: [manual.status, manual.headers.location], followed: [followed.status, followed.text] }
  })
  expect(recorded.result).toEqual({ manual: [302, '/new'], followed: [200, JSON.stringify({ at: '/new' })] })
  expect(replayed.result).toEqual(recorded.result)
  expect(storedStatuses(fixture)).toEqual([302, 200])
  expect(replayHits).toBe(0)
})
