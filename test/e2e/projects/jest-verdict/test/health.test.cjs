const { createServer } = require('node:http')
const { ask } = require('../src/gateway.cjs')

// The app's health endpoint, served from the test process on a port the OS picks, next to the assistant.
const describeIfKey = process.env.MY_GATEWAY_TOKEN ? describe : describe.skip

describeIfKey('health endpoint next to the agent', () => {
  let server
  let base

  beforeAll(async () => {
    server = createServer((req, res) => res.writeHead(req.url === '/health' ? 200 : 404).end())
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${server.address().port}`
    expect((await fetch(`${base}/health`, { method: 'HEAD' })).status).toBe(200)
  })

  afterAll(() => new Promise((resolve) => server.close(() => resolve())))

  it('is up, and the agent answers Germany', async () => {
    const res = await fetch(`${base}/health`, { method: 'HEAD' })
    expect(res.status).toBe(200)
    expect(await ask(`What is the capital of Germany? (health ${res.status})`)).toContain('Berlin')
  })
})
