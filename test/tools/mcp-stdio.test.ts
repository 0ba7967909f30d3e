/**
 * Issue 16 item 1: MCP over stdio on the tool channel, with the official SDK's Client and
 * StdioClientTransport against a real stdio server (test/support/mcp-stdio-server.mjs run with
 * node). Every JSON-RPC message both ways is on the tape; a replay never starts the server
 * process (it logs each start to a file); an off-tape call is the usual divergence.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { CreateMessageRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { mcp, scenario, type Lab } from 'fluxlab'
import { matchers } from 'fluxlab/matchers'
import { expect, test } from 'vitest'
import { fluxlab as fluxlabCli } from '../cli/support.js'
import { tempDir, useEngineSandbox } from '../engine/helpers.js'

useEngineSandbox()
expect.extend(matchers)

const SERVER = fileURLToPath(new URL('../support/mcp-stdio-server.mjs', import.meta.url))
const text = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as Array<{ text: string }>)[0].text
const spawns = (log: string) => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0)
const stdio = (log: string, secret?: string) =>
  new StdioClientTransport({ command: process.execPath, args: [SERVER, log, ...(secret ? [secret] : [])], stderr: 'ignore' })
const toolLines = (dir: string, name: string) =>
  readFileSync(join(dir, name, 'tools.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map(
      (l) =>
        JSON.parse(l) as {
          name: string
          url: string
          kind: string
          rpcId?: number
          args: { body: { id?: unknown } }
          response: { chunks: Array<{ text: string }> }
        },
    )

/** The agent: connect over stdio, ask for the weather in `city`, keep the server's log messages. */
async function weatherAgent(transport: StdioClientTransport, city: string) {
  const client = new Client({ name: 'agent', version: '1.0.0' })
  const logs: string[] = []
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(String(n.params.data)))
  await client.connect(transport)
  try {
    const tools = (await client.listTools()).tools.map((t) => t.name)
    const answer = await client.callTool({ name: 'get_weather', arguments: { city } }).then(text, (e: Error) => `error: ${e.message}`)
    return { tools, answer, logs }
  } finally {
    await client.close()
  }
}

test('lab.mcp records every message both ways; the replay (CI=1) never starts the server and answers in order', async () => {
  const dir = tempDir()
  const log = join(tempDir(), 'spawns.log')
  const rec = await (await scenario('stdio-weather', { dir })).run((lab: Lab) => weatherAgent(lab.mcp(stdio(log)), 'Paris'))
  expect(rec.result).toEqual({ tools: ['get_weather', 'get_config', 'summarize', 'crash'], answer: 'Paris: 18°C', logs: ['looking up Paris'] })
  expect(spawns(log)).toBe(1)

  const cells = toolLines(dir, 'stdio-weather')
  expect(cells.map((c) => c.name)).toEqual(['mcp initialize', 'mcp notifications/initialized', 'mcp tools/list', 'mcp get_weather'])
  expect(new Set(cells.map((c) => `${c.kind} ${c.url}`))).toEqual(new Set(['http stdio://mcp-stdio-server/']))
  // the JSON-RPC id is positional: a placeholder in the key, the recorded one kept apart
  expect(cells[0].args.body.id).toBe('<jsonrpc-id>')
  expect(cells.map((c) => c.rpcId)).toEqual([0, undefined, 1, 2])
  // the server's log message is on the call's cell, before its result
  const call = cells[3].response.chunks.map((c) => JSON.parse(c.text) as { method?: string; id?: number })
  expect(call.map((m) => m.method ?? `result ${m.id}`)).toEqual(['notifications/message', 'result 2'])

  process.env.CI = '1'
  const out = await (await scenario('stdio-weather', { dir })).run((lab: Lab) => weatherAgent(lab.mcp(stdio(log)), 'Paris'))
  expect(out.result).toEqual(rec.result)
  expect(spawns(log)).toBe(1)
  expect(out).toReplayFaithfully()
  expect(out.hermetic).toBe(true)
  expect(out).toCall(['get_weather'])
  expect(out).toCallWith('get_weather', { city: 'Paris' })
  expect(out.trace()).toContain('mcp get_weather')
}, 30_000)

test('an off-tape tools/call is the usual divergence, naming the closest recorded call; the server is still not started', async () => {
  const dir = tempDir()
  const log = join(tempDir(), 'spawns.log')
  await (await scenario('stdio-diverge', { dir })).run((lab: Lab) => weatherAgent(lab.mcp(stdio(log)), 'Paris'))
  expect(spawns(log)).toBe(1)

  process.env.CI = '1'
  const out = await (await scenario('stdio-diverge', { dir })).run((lab: Lab) => weatherAgent(lab.mcp(stdio(log)), 'Oslo'))
  expect(spawns(log)).toBe(1)
  expect(out.result?.answer).toMatch(/^error: \[fluxlab\] tool#4 mcp get_weather of scenario "stdio-diverge" is off tape/)
  expect(out).not.toReplayFaithfully()
  const d = out.divergences.find((x) => x.code === 'tool_call_unrecorded')
  expect(d?.step).toBe('tool#4 mcp get_weather')
  expect(d?.message).toContain('closest recorded tool#4')
  expect(d?.message).toContain('Oslo')
}, 30_000)

test('redaction applies to the frames: a real-looking key in a tool result never reaches the fixture', async () => {
  const dir = tempDir()
  const log = join(tempDir(), 'spawns.log')
  const key = `sk-proj-${'Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z'.repeat(2)}`
  const agent = async (lab: Lab) => {
    const client = new Client({ name: 'agent', version: '1.0.0' })
    await client.connect(lab.mcp(stdio(log, key)))
    const answer = text(await client.callTool({ name: 'get_config', arguments: {} }))
    await client.close()
    return answer
  }
  const rec = await (await scenario('stdio-secret', { dir })).run(agent)
  expect(rec.result).toContain(key)
  for (const f of readdirSync(join(dir, 'stdio-secret'))) expect(readFileSync(join(dir, 'stdio-secret', f), 'utf8')).not.toContain(key.slice(8, 40))
  expect(readFileSync(join(dir, 'stdio-secret', 'tools.jsonl'), 'utf8')).toContain('[REDACTED:')

  process.env.CI = '1'
  const out = await (await scenario('stdio-secret', { dir })).run(agent)
  expect(out.result).toMatch(/api_key=\[REDACTED:[0-9a-f]{8}\]/)
  expect(spawns(log)).toBe(1)
}, 30_000)

test('mcp() from fluxlab follows the run it is sent in: a client shared across scenarios numbers its ids on', async () => {
  const dir = tempDir()
  const log = join(tempDir(), 'spawns.log')
  const run = async () => {
    const client = new Client({ name: 'agent', version: '1.0.0' })
    const first = await (await scenario('stdio-shared-1', { dir })).run(async () => {
      await client.connect(mcp(stdio(log)))
      return text(await client.callTool({ name: 'get_weather', arguments: { city: 'Paris' } }))
    })
    const second = await (await scenario('stdio-shared-2', { dir })).run(async () =>
      text(await client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } })),
    )
    await client.close()
    return [first, second]
  }
  const rec = await run()
  expect(rec.map((o) => o.result)).toEqual(['Paris: 18°C', 'Oslo: -3°C'])
  expect(toolLines(dir, 'stdio-shared-2').map((c) => [c.name, c.rpcId])).toEqual([['mcp get_weather', 2]])

  process.env.CI = '1'
  const out = await run()
  expect(out.map((o) => o.result)).toEqual(['Paris: 18°C', 'Oslo: -3°C'])
  expect(spawns(log)).toBe(1)
  for (const o of out) expect(o).toReplayFaithfully()
  expect(out[1]).toCallWith('get_weather', { city: 'Oslo' })
}, 30_000)

test('the handshake is matched by method and never reported unused: another client version that skips tools/list still replays', async () => {
  const dir = tempDir()
  const log = join(tempDir(), 'spawns.log')
  await (await scenario('stdio-handshake', { dir })).run((lab: Lab) => weatherAgent(lab.mcp(stdio(log)), 'Paris'))

  process.env.CI = '1'
  const out = await (await scenario('stdio-handshake', { dir })).run(async (lab: Lab) => {
    const client = new Client({ name: 'agent', version: '2.0.0' }, { capabilities: { roots: { listChanged: true } } })
    await client.connect(lab.mcp(stdio(log)))
    const answer = text(await client.callTool({ name: 'get_weather', arguments: { city: 'Paris' } }))
    await client.close()
    return answer
  })
  expect(out.result).toBe('Paris: 18°C')
  expect(out).toReplayFaithfully()
  expect(out.divergences).toEqual([])
  expect(out.calls.map((c) => c.name)).toEqual(['get_weather'])
  expect(spawns(log)).toBe(1)
}, 30_000)

test('fluxlab show labels the transport: stdio MCP steps say so, in the terminal and in the HTML viewer', async () => {
  const dir = tempDir()
  const log = join(tempDir(), 'spawns.log')
  await (await scenario('stdio-show', { dir })).run((lab: Lab) => weatherAgent(lab.mcp(stdio(log)), 'Paris'))

  const tree = await fluxlabCli(['show', 'stdio-show', '--dir', dir], { cwd: dir })
  expect(tree.code, tree.output).toBe(0)
  expect(tree.stdout).toMatch(/tool#4 mcp get_weather \[mcp stdio\] \{"body"/)
  expect(tree.stdout).toMatch(/tool#1 mcp initialize \[mcp stdio\]/)

  const file = join(dir, 'trace.html')
  const r = await fluxlabCli(['show', 'stdio-show', '--dir', dir, '--html', file], { cwd: dir })
  expect(r.code, r.output).toBe(0)
  const html = readFileSync(file, 'utf8')
  expect(html).toContain(
    '<b>mcp get_weather</b> <span class="transport stdio" title="MCP over stdio: stdio://mcp-stdio-server/ (one chunk per server message)">MCP stdio</span>',
  )
  expect(html).toContain('class="bar tool mcp-stdio"')

  // the fixture verifies offline like any other: keys re-derive, the secret scan is clean
  const verify = await fluxlabCli(['test', 'stdio-show', '--dir', dir], { cwd: dir })
  expect(verify.code, verify.output).toBe(0)
}, 30_000)

test('both directions: a server request inside a call (sampling) and parallel calls record and replay', async () => {
  const dir = tempDir()
  const log = join(tempDir(), 'spawns.log')
  const sampled: string[] = []
  const agent = async (lab: Lab) => {
    const client = new Client({ name: 'agent', version: '1.0.0' }, { capabilities: { sampling: {} } })
    client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
      const first = req.params.messages[0].content as { type: string; text?: string }
      sampled.push(first.text ?? '?')
      return { model: 'client-model', role: 'assistant', content: { type: 'text', text: 'short' } }
    })
    await client.connect(lab.mcp(stdio(log)))
    const summary = text(await client.callTool({ name: 'summarize', arguments: { text: 'a long story' } }))
    const both = (await Promise.all(['Paris', 'Oslo'].map((city) => client.callTool({ name: 'get_weather', arguments: { city } })))).map(text)
    await client.close()
    return { summary, both }
  }
  const rec = await (await scenario('stdio-both-ways', { dir })).run(agent)
  expect(rec.result).toEqual({ summary: 'summary: short', both: ['Paris: 18°C', 'Oslo: -3°C'] })
  expect(sampled).toEqual(['Summarize: a long story'])

  process.env.CI = '1'
  const out = await (await scenario('stdio-both-ways', { dir })).run(agent)
  expect(out.result).toEqual(rec.result)
  // the replayed server request reached the client's handler, and its answer matched the recorded one
  expect(sampled).toEqual(['Summarize: a long story', 'Summarize: a long story'])
  expect(out).toReplayFaithfully()
  expect(spawns(log)).toBe(1)
  expect(out.calls.map((c) => c.name).sort()).toEqual(['get_weather', 'get_weather', 'summarize'])
  // the client's answer to the sampling request is protocol, on the tape as `mcp response`
  expect(toolLines(dir, 'stdio-both-ways').map((c) => c.name)).toContain('mcp response')
}, 30_000)

test('a server that exits mid-call closes the client on replay too, instead of leaving the call waiting', async () => {
  const dir = tempDir()
  const log = join(tempDir(), 'spawns.log')
  const agent = async (lab: Lab) => {
    const client = new Client({ name: 'agent', version: '1.0.0' })
    let closedBy = 'open'
    client.onclose = () => void (closedBy = 'closed')
    await client.connect(lab.mcp(stdio(log)))
    const answer = await client.callTool({ name: 'crash', arguments: {} }).then(text, (e: Error) => `error: ${e.message}`)
    return { answer, closedBy }
  }
  const rec = await (await scenario('stdio-crash', { dir })).run(agent)
  expect(rec.result).toEqual({ answer: expect.stringMatching(/^error: .*Connection closed/), closedBy: 'closed' })

  process.env.CI = '1'
  const out = await (await scenario('stdio-crash', { dir })).run(agent)
  expect(out.result).toEqual(rec.result)
  expect(spawns(log)).toBe(1)
}, 30_000)
