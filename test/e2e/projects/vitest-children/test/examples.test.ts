// The examples and scripts run as a user runs them: each in a process of its own.
import { execFile, execFileSync, execSync } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, it, test } from 'vitest'

const run = promisify(execFile)
const hasKey = !!process.env.OPENAI_API_KEY

describe.skipIf(!hasKey)('examples', () => {
  it('hello answers the capital of the UK', () => {
    expect(execSync('npx tsx examples/hello.ts UK', { encoding: 'utf8' })).toContain('London')
  })

  it('ask.mjs answers France', async () => {
    const { stdout } = await run('node', ['scripts/ask.mjs', 'France'])
    expect(stdout).toContain('Paris')
  })

  it('relay.mjs hands Japan to a sub-agent and answers Italy itself', async () => {
    const { stdout } = await run('node', ['scripts/relay.mjs', 'Japan', 'Italy'])
    expect(stdout).toMatch(/^sub-agent: .*Tokyo/m)
    expect(stdout).toMatch(/^coordinator: .*Rome/m)
  })
})

describe.skipIf(!hasKey)('scripts side by side', () => {
  test.concurrent('ask.mjs answers Spain', async ({ expect }) => {
    const { stdout } = await run('node', ['scripts/ask.mjs', 'Spain'])
    expect(stdout).toContain('Madrid')
  })

  test.concurrent('ask.mjs answers Germany', async ({ expect }) => {
    const { stdout } = await run('node', ['scripts/ask.mjs', 'Germany'])
    expect(stdout).toContain('Berlin')
  })
})

test('ask.mjs prints its usage without any model call', () => {
  expect(execFileSync('node', ['scripts/ask.mjs'], { encoding: 'utf8' })).toContain('usage: node scripts/ask.mjs <country>')
})
