const { spawn } = require('node:child_process')
const { createServer } = require('node:net')

// The search service runs as its own process; the suite starts it and waits until it answers.
let child
let base

async function freePort() {
  const s = createServer()
  await new Promise((resolve) => s.listen(0, resolve))
  const { port } = s.address()
  await new Promise((resolve) => s.close(resolve))
  return port
}

beforeAll(async () => {
  const port = await freePort()
  base = `http://localhost:${port}`
  child = spawn(process.execPath, ['src/search-server.mjs'], { env: { ...process.env, PORT: String(port) }, stdio: 'inherit' })
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/health`)).ok) break
    } catch {
      // not up yet
    }
    if (i > 200) throw new Error('the search service did not start')
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
})

afterAll(() => {
  child.kill()
})

test('the search service finds a city', async () => {
  const res = await fetch(`${base}/search?q=rome`)
  expect(await res.json()).toEqual({ hits: ['Rome'] })
})
