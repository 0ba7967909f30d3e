/**
 * Issue 12: MCP over streamable HTTP is part of the tool channel, tested with the official SDK's
 * client and server on 127.0.0.1. JSON-RPC ids are positional (a client shared across scenarios
 * numbers on from the last one), cells are named by what they do (`mcp get_weather`, not host and
 * port), a tools/call is a call in the trajectory, and the GET stream the client keeps open does
 * not hold the run up.
 */
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { scenario } from 'fluxlab'
import { matchers } from 'fluxlab/matchers'
import { expect, test } from 'vitest'
import { z } from 'zod'
import { tempDir, useEngineSandbox } from '../engine/helpers.js'

useEngineSandbox()
expect.extend(matchers)

async function startWeatherMcp(): Promise<{ url: string; calls: string[]; close(): Promise<void> }> {
  const calls: string[] = []
  const mcp = new McpServer({ name: 'weather', version: '1.0.0' })
  mcp.registerTool('get_weather', { description: 'weather in a city', inputSchema: { city: z.string() } }, async ({ city }) => {
    calls.push(city)
    return { content: [{ type: 'text', text: `${city}: ${city === 'Oslo' ? -3 : 18}°C` }] }
  })
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() })
  await mcp.connect(transport)
  const http = createServer((req, res) => void transport.handleRequest(req, res))
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()))
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    calls,
    close: async () => {
      await mcp.close()
      http.closeAllConnections()
      await new Promise<void>((r) => http.close(() => r()))
    },
  }
}

const text = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as Array<{ text: string }>)[0].text

test('MCP tool calls record and replay against another port, with a client shared across scenarios', async () => {
  const dir = tempDir()
  const server = await startWeatherMcp()
  const run = async (url: string) => {
    const client = new Client({ name: 'agent', version: '1.0.0' })
    const first = await (await scenario('mcp-paris', { dir })).run(async () => {
      await client.connect(new StreamableHTTPClientTransport(new URL(url)))
      return text(await client.callTool({ name: 'get_weather', arguments: { city: 'Paris' } }))
    })
    // The same client in the next scenario: its JSON-RPC ids go on from the first one's.
    const second = await (await scenario('mcp-oslo', { dir })).run(async () =>
      text(await client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } })),
    )
    await client.close()
    return { first, second }
  }

  const rec = await run(server.url)
  expect([rec.first.result, rec.second.result]).toEqual(['Paris: 18°C', 'Oslo: -3°C'])
  expect(server.calls).toEqual(['Paris', 'Oslo'])
  const url = server.url
  await server.close()

  // Replay with a fresh client (its ids start over) against a port where nothing listens.
  const other = url.replace(/:\d+\//, ':9/')
  const out = await run(other)
  expect(out.first.result).toBe('Paris: 18°C')
  expect(out.second.result).toBe('Oslo: -3°C')
  for (const o of [out.first, out.second]) {
    expect(o).toReplayFaithfully()
    expect(o.hermetic).toBe(true)
  }
  expect(out.first).toCall(['get_weather'])
  expect(out.first).toCallWith('get_weather', { city: 'Paris' })
  expect(out.second.calls.map((c) => c.name)).toEqual(['get_weather'])
  expect(out.first.trace()).toContain('mcp get_weather')
}, 30_000)

test('the MCP handshake need not repeat exactly: another client version, no tools/list, a second connect', async () => {
  const dir = tempDir()
  const server = await startWeatherMcp()
  const rec = await (await scenario('mcp-handshake', { dir })).run(async () => {
    const client = new Client({ name: 'agent', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)))
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['get_weather'])
    const answer = text(await client.callTool({ name: 'get_weather', arguments: { city: 'Paris' } }))
    await client.close()
    return answer
  })
  expect(rec.result).toBe('Paris: 18°C')
  const url = server.url
  await server.close()

  const out = await (await scenario('mcp-handshake', { dir })).run(async () => {
    // A newer client that connects, drops the connection, connects again, and never lists the tools.
    const first = new Client({ name: 'agent', version: '2.0.0' }, { capabilities: { roots: { listChanged: true } } })
    await first.connect(new StreamableHTTPClientTransport(new URL(url)))
    await first.close()
    const client = new Client({ name: 'agent', version: '2.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(url)))
    const answer = text(await client.callTool({ name: 'get_weather', arguments: { city: 'Paris' } }))
    await client.close()
    return answer
  })
  expect(out.result).toBe('Paris: 18°C')
  expect(out).toReplayFaithfully()
  expect(out.hermetic).toBe(true)
  expect(out.calls.map((c) => c.name)).toEqual(['get_weather'])

  // The agent's own calls are still strict: another city is a miss.
  const other = await (await scenario('mcp-handshake', { dir })).run(async () => {
    const client = new Client({ name: 'agent', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(url)))
    const answer = await client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } }).then(text, (e: Error) => `error: ${e.message}`)
    await client.close().catch(() => undefined)
    return answer
  })
  expect(other).not.toReplayFaithfully()
}, 30_000)
