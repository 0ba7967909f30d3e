// A real MCP server over stdio (the official SDK's McpServer + StdioServerTransport), for the
// MCP-over-stdio tests: `node mcp-stdio-server.mjs <spawn-log> [secret]`. Every start appends a line
// to <spawn-log>, so a test can count how often the process was started (a replay never starts it).
// `get_weather` logs a message to the client before it answers (a server notification inside a call);
// `get_config` answers with the secret it was given (a real-looking key that must not reach a fixture);
// `summarize` asks the client for a sampling completion first; `crash` exits mid-call.
import { appendFileSync } from 'node:fs'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { z } from 'zod'

const [spawnLog, secret = 'none'] = process.argv.slice(2)
if (spawnLog) appendFileSync(spawnLog, `${process.pid}\n`)

const server = new McpServer({ name: 'weather', version: '1.0.0' }, { capabilities: { logging: {} } })
server.registerTool('get_weather', { description: 'weather in a city', inputSchema: { city: z.string() } }, async ({ city }) => {
  await server.server.sendLoggingMessage({ level: 'info', data: `looking up ${city}` })
  return { content: [{ type: 'text', text: `${city}: ${city === 'Oslo' ? -3 : 18}°C` }] }
})
server.registerTool('get_config', { description: 'the service configuration', inputSchema: {} }, async () => ({
  content: [{ type: 'text', text: `endpoint=https://svc.internal api_key=${secret}` }],
}))
// A server request inside a call: the client answers a sampling request, then the tool answers.
server.registerTool('summarize', { description: 'summarize a text with the client model', inputSchema: { text: z.string() } }, async ({ text }) => {
  const reply = await server.server.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: `Summarize: ${text}` } }], maxTokens: 50 })
  return { content: [{ type: 'text', text: `summary: ${reply.content.type === 'text' ? reply.content.text : '?'}` }] }
})
// The process dies in the middle of a call.
server.registerTool('crash', { description: 'exits the server', inputSchema: {} }, async () => process.exit(3))
await server.connect(new StdioServerTransport())
