import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ask } from '../src/agent'

// The app's health endpoint, served from the test process on a port the OS picks, next to the assistant.
describe.skipIf(!process.env.OPENAI_API_KEY)('health endpoint next to the agent', () => {
  let server: Server
  let base: string

  beforeAll(async () => {
    server = createServer((req, res) => res.writeHead(req.url === '/health' ? 200 : 404).end())
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    expect((await fetch(`${base}/health`, { method: 'HEAD' })).status).toBe(200)
  })

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('is up, and the agent answers Germany', async () => {
    const res = await fetch(`${base}/health`, { method: 'HEAD' })
    expect(res.status).toBe(200)
    expect(await ask(`What is the capital of Germany? (health ${res.status})`)).toContain('Berlin')
  })
})
