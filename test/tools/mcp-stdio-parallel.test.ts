/**
 * Issue 28 item 2 over stdio: parallel calls of one MCP tool through `lab.mcp(new StdioClientTransport(...))`, against
 * a real stdio server (test/support/mcp-stdio-items-server.mjs). While recording every message goes out at once (the
 * server answers none until all have arrived, and the late one holds no other up); on replay (CI=1, the server never started)
 * the calls are made in another order and each gets its own recorded answer, progress included, under today's
 * JSON-RPC id and progress token.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { scenario, type Lab } from 'fluxlab'
import { matchers } from 'fluxlab/matchers'
import { expect, test } from 'vitest'
import { tempDir, useEngineSandbox } from '../engine/helpers.js'

useEngineSandbox()
expect.extend(matchers)

const SERVER = fileURLToPath(new URL('../support/mcp-stdio-items-server.mjs', import.meta.url))
const LATE = 99
const spawns = (log: string) => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0)

/** The agent: mark every item at once over stdio, in the order given; keep what each call got and the order answers came in. */
async function markAll(lab: Lab, log: string, n: number, ids: number[], progress: boolean) {
  const client = new Client({ name: 'agent', version: '1.0.0' })
  await client.connect(lab.mcp(new StdioClientTransport({ command: process.execPath, args: [SERVER, log, String(n)], stderr: 'ignore' })))
  const answered: number[] = []
  const progressed: string[] = []
  try {
    const results = await Promise.all(
      ids.map(async (id) => {
        const onprogress = progress ? (p: { progress: number }) => void progressed.push(`${id}: ${p.progress}`) : undefined
        const r = await client.callTool({ name: 'mark_item', arguments: { id } }, undefined, { timeout: 5_000, onprogress })
        answered.push(id)
        return { text: (r.content as Array<{ text: string }>)[0].text, id: (r.structuredContent as { id: number }).id }
      }),
    )
    return { results, answered, progressed: progressed.sort() }
  } finally {
    await client.close()
  }
}

for (const n of [3, 10])
  for (const progress of [false, true])
    test(`${n} parallel stdio calls of one tool${progress ? ' with progress' : ''} and a late one record at once and replay in any order`, async () => {
      const dir = tempDir()
      const log = join(tempDir(), 'spawns.log')
      const name = `stdio-parallel-${n}${progress ? '-progress' : ''}`
      const ids = [...Array.from({ length: n }, (_, i) => i + 1), LATE]
      const rec = await (await scenario(name, { dir })).run((lab: Lab) => markAll(lab, log, n, ids, progress))
      const results = rec.result?.results ?? []
      expect(results.map((r) => [r.text, r.id])).toEqual(ids.map((id) => [`marked ${id}`, id]))
      // every call was in flight at once (the server answers none before), and the late one was answered last
      expect(rec.result?.answered.at(-1)).toBe(LATE)
      expect(spawns(log)).toBe(1)
      if (progress) expect(rec.result?.progressed).toEqual(ids.map((id) => `${id}: ${id}`).sort())
      expect(readFileSync(join(dir, name, 'tools.jsonl'), 'utf8')).not.toContain('notifications/cancelled')

      process.env.CI = '1'
      const shuffled = [LATE, ...ids.slice(0, -1).reverse()]
      const out = await (await scenario(name, { dir })).run((lab: Lab) => markAll(lab, log, n, shuffled, progress))
      const byId = new Map(results.map((r) => [r.id, r]))
      expect(out.result?.results).toEqual(shuffled.map((id) => byId.get(id)))
      expect(out.result?.progressed).toEqual(rec.result?.progressed)
      expect(spawns(log)).toBe(1)
      expect(out.divergences).toEqual([])
      expect(out).toReplayFaithfully()
      expect(out.hermetic).toBe(true)
    }, 60_000)
