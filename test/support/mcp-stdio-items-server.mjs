// A real MCP server over stdio (the official SDK's McpServer + StdioServerTransport) for the parallel MCP tests:
// `node mcp-stdio-items-server.mjs <spawn-log> <n>`. Every start appends a line to <spawn-log> (a replay never starts
// it). `mark_item` reports progress when asked to, waits until all n + 1 calls have arrived (a recorder that held one
// back until another was answered would hold them all up), then marks item `id` after a delay: the later an item of
// 1..n is asked for, the sooner it is done, and item 99 takes longest (a call the server answers late).
import { appendFileSync } from 'node:fs'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { z } from 'zod'

const [spawnLog, n = '3'] = process.argv.slice(2)
if (spawnLog) appendFileSync(spawnLog, `${process.pid}\n`)

let arrived = 0
let allThere
const together = new Promise((r) => (allThere = r))
const server = new McpServer({ name: 'items', version: '1.0.0' })
server.registerTool('mark_item', { description: 'mark one item done', inputSchema: { id: z.number() }, outputSchema: { id: z.number(), marked: z.boolean() } }, async ({ id }, extra) => {
  const progressToken = extra._meta?.progressToken
  if (progressToken !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: id, total: 100 } })
  if (++arrived === Number(n) + 1) allThere()
  await together
  await new Promise((r) => setTimeout(r, id === 99 ? 600 : (Number(n) + 1 - id) * 20))
  return { content: [{ type: 'text', text: `marked ${id}` }], structuredContent: { id, marked: true } }
})
await server.connect(new StdioServerTransport())
