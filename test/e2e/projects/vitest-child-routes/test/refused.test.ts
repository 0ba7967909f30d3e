import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { expect, test } from 'vitest'

const run = promisify(execFile)

test('a route to where nothing listens fails the call as a refused connection', async () => {
  const { stdout } = await run('node', ['scripts/refused.mjs'])
  expect(stdout).toContain('TypeError: fetch failed (ECONNREFUSED)')
})
