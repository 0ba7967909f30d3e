// The examples and scripts run as a user runs them: each in a process of its own.
const { execFile, execFileSync, execSync } = require('node:child_process')
const { promisify } = require('node:util')

const run = promisify(execFile)
const hasKey = !!process.env.OPENAI_API_KEY
const describeIfKey = hasKey ? describe : describe.skip

describeIfKey('examples', () => {
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

test('ask.mjs prints its usage without any model call', () => {
  expect(execFileSync('node', ['scripts/ask.mjs'], { encoding: 'utf8' })).toContain('usage: node scripts/ask.mjs <country>')
})
