/**
 * Resurrect: the capital agent run durably, interrupted after its tool call,
 * then resumed. Two small local servers play the production provider (serving
 * the bytes recorded in ../scenarios/capital-agent) and the geography service,
 * so the example needs no key and no network.
 */
import { readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { durable, type ModelCell } from 'fluxlab'
import OpenAI from 'openai'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { capitalAgent } from '../capital-agent/agent.js'

const recorded = readFileSync(fileURLToPath(new URL('../scenarios/capital-agent/model.jsonl', import.meta.url)), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as ModelCell)
const STATE = fileURLToPath(new URL('../.state/run-42', import.meta.url))

let server: Server
let geo: Server
let url: string
let modelRequests = 0
const saved = { FLUX_OFFLINE: process.env.FLUX_OFFLINE }

beforeAll(async () => {
  // The geography service lives where the agent expects it (GEO_API_URL's default, as recorded).
  geo = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"capital":"London"}'))
  await new Promise<void>((r) => geo.listen(4010, '127.0.0.1', r))
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (d) => (body += d))
    req.on('end', () => {
      // The first request carries one message; the second carries the tool result too.
      const cell = recorded[(JSON.parse(body) as { messages: unknown[] }).messages.length === 1 ? 0 : 1]
      modelRequests++
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      for (const c of cell.response.chunks) res.write(c.text ?? Buffer.from(c.b64 ?? '', 'base64'))
      res.end()
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  // @note this example's "production" is the local server above, so live calls are allowed here.
  delete process.env.FLUX_OFFLINE
  rmSync(STATE, { recursive: true, force: true })
})
afterAll(() => {
  server.close()
  geo.close()
  rmSync(STATE, { recursive: true, force: true })
  for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]
  else process.env[k] = v
})

test('resumes an interrupted run without paying for the finished model call again', async () => {
  const client = () => new OpenAI({ baseURL: `${url}/v1`, apiKey: 'sk-example' })

  // First attempt: the network "goes down" as the agent asks for its second model turn, after the tool
  // answered (model#1 and tool#1 are already journaled when that happens).
  let chatCalls = 0
  const flaky = new OpenAI({
    baseURL: `${url}/v1`,
    apiKey: 'sk-example',
    maxRetries: 0,
    fetch: async (input, init) => {
      if (String(input).includes('/chat/completions') && ++chatCalls === 2) throw new Error('power cut')
      return globalThis.fetch(input, init)
    },
  })
  await expect(durable(STATE, () => capitalAgent('What is the capital of the UK? Use the tool, then answer.', flaky))).rejects.toThrow()
  expect(modelRequests).toBe(1)

  // Second attempt: same directory, so durable() resumes and says so.
  const { result, resurrected } = await durable(STATE, () => capitalAgent('What is the capital of the UK? Use the tool, then answer.', client()))
  expect(result.answer).toContain('London')
  expect(resurrected).toMatchObject({ servedFromJournal: 2, ranLive: 1, inFlight: [] })
  expect(modelRequests).toBe(2)
  console.log(
    `[durable] resumed: ${resurrected!.servedFromJournal} from journal, ${resurrected!.ranLive} live, at-least-once: ${resurrected!.inFlight.join(', ') || 'none'}\n  answer: ${result.answer}`,
  )
})
