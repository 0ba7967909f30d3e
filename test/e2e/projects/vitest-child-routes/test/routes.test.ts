// Each script reaches the vendor only through its own routing: a dispatcher, a fetch wrapper, or FLUX_UPSTREAM in its env.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { expect, test } from 'vitest'

const run = promisify(execFile)

test('a global undici dispatcher routes the vendor host', async () => {
  const { stdout } = await run('node', ['scripts/ask.mjs', 'dispatcher', 'UK'])
  expect(stdout).toContain('London')
})

test('a fetch wrapper gives each request its own dispatcher', async () => {
  const { stdout } = await run('node', ['scripts/ask.mjs', 'wrapper', 'France'])
  expect(stdout).toContain('Paris')
})

test("FLUX_UPSTREAM in the child's environment only", async () => {
  const env = { ...process.env, ...(process.env.CHILD_UPSTREAM ? { FLUX_UPSTREAM: process.env.CHILD_UPSTREAM } : {}) }
  const { stdout } = await run('node', ['scripts/ask.mjs', 'plain', 'Japan'], { env })
  expect(stdout).toContain('Tokyo')
})
