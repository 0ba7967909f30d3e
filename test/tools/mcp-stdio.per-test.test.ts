/**
 * Issue 16 item 1, whole-suite mode: a suite adopted by config lines alone (`scenarios: 'per-test'`)
 * wraps its StdioClientTransport in `mcp()` from fluxlab; each test's stdio traffic lands on that
 * test's scenario (with a model call: a test that makes none records no scenario). Recorded under real vitest, replayed with CI=1 without starting the server, and
 * an off-tape call fails the test naming the divergence.
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startCapitalServer, type CapitalServer } from '../e2e/support/capital-server.js'
import { assertBuilt, createProject, linkSelf, REPO, runVitest, type Project } from '../e2e/support/project.js'

const TIMEOUT = 150_000
const KEY = 'sk-e2e-recording-key-not-real'
let project: Project
let server: CapitalServer

const spawns = () => (existsSync(project.path('spawns.log')) ? readFileSync(project.path('spawns.log'), 'utf8').split('\n').filter(Boolean).length : 0)
function files(dir: string, name: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f)
    if (f === 'node_modules') return []
    return statSync(p).isDirectory() ? files(p, name) : f === name ? [p] : []
  })
}

beforeAll(async () => {
  assertBuilt()
  linkSelf()
  project = createProject('vitest-suite')
  rmSync(project.path('test/agent.test.ts'))
  project.write(
    'test/weather.test.ts',
    `import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { mcp, testOutcome } from 'fluxlab'
import { expect, test } from 'vitest'
import { ask } from '../src/agent'

test('asks the weather over stdio, then the model', async () => {
  const client = new Client({ name: 'agent', version: '1.0.0' })
  const transport = new StdioClientTransport({ command: process.execPath, args: [${JSON.stringify(join(REPO, 'test/support/mcp-stdio-server.mjs'))}, ${JSON.stringify(project.path('spawns.log'))}], stderr: 'ignore' })
  await client.connect(mcp(transport))
  const r = await client.callTool({ name: 'get_weather', arguments: { city: process.env.CITY ?? 'Paris' } })
  await client.close()
  expect((r.content as Array<{ text: string }>)[0].text).toBe('Paris: 18°C')
  expect(await ask('What is the capital of the UK? Use the tool, then answer.')).toBe('The capital of the UK is London.')
  expect(testOutcome()).toCall(['get_weather', 'get_capital'], { mode: 'superset' })
})
`,
  )
  server = await startCapitalServer()
  const r = await runVitest(project, [], { PROVIDER_URL: server.url, OPENAI_API_KEY: KEY })
  expect(r.code, r.output).toBe(0)
  await server.close()
}, TIMEOUT)
afterAll(() => project?.remove())

test(
  'the test records its stdio messages on its scenario, and replays them with CI=1 without starting the server',
  async () => {
    expect(spawns()).toBe(1)
    const [tools] = files(project.dir, 'tools.jsonl')
    const names = readFileSync(tools, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { name: string }).name)
    expect(names.filter((n) => n.startsWith('mcp '))).toEqual(['mcp initialize', 'mcp notifications/initialized', 'mcp get_weather'])

    const r = await runVitest(project, [], { PROVIDER_URL: server.url, CI: '1' })
    expect(r.code, r.output).toBe(0)
    expect(spawns()).toBe(1)
  },
  TIMEOUT,
)

test(
  'an off-tape call fails the test with the divergence, and the server is still not started',
  async () => {
    const r = await runVitest(project, [], { PROVIDER_URL: server.url, CI: '1', CITY: 'Oslo' })
    expect(r.code, r.output).not.toBe(0)
    expect(r.output).toContain('tool#3 mcp get_weather')
    expect(r.output).toContain('is off tape')
    expect(spawns()).toBe(1)
  },
  TIMEOUT,
)
