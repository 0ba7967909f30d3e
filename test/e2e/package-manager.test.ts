/**
 * Issue 38 item 9 (Integrail/oneringai's `npx -y @modelcontextprotocol/server-filesystem`): a package manager a test
 * starts behaves as without fluxlab. Its own process (here a stand-in at `node_modules/npm/bin/npx-cli.js`, the
 * path of npx's entry script) is not intercepted, so its registry request goes where it would go, in every mode, and
 * is in no fixture; the program it starts gets the preload and its model calls are on the test's tape, replayed
 * under FLUX_OFFLINE=1 with the provider closed.
 * @note the registry is a stand-in on 127.0.0.1 reached under a name of its own (`registry.pm.test`, looked up by the
 * stand-in npx itself), so it is no loopback URL fluxlab would let through as the test's own server.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startCapitalServer, type CapitalServer } from './support/capital-server.js'
import { assertBuilt, createProject, linkSelf, runVitest, type Project, type RunResult } from './support/project.js'

const KEY = 'sk-e2e-recording-key-not-real'
const TIMEOUT_MS = 90_000

// What npx does for `npx -y <package>`: ask the registry for the package, then start its bin (here the agent script).
const NPX = `const http = require('node:http')
const { execFileSync } = require('node:child_process')
const lookup = (host, options, cb) => (options.all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4))
http.get(\`http://registry.pm.test:\${process.env.PM_REGISTRY_PORT}/@acme%2fagent\`, { lookup }, (res) => {
  let body = ''
  res.on('data', (c) => (body += c))
  res.on('end', () => {
    console.log(\`registry: \${body}\`)
    process.stdout.write(execFileSync(process.execPath, ['scripts/ask.mjs', process.argv[2]], { encoding: 'utf8' }))
  })
}).on('error', (e) => {
  console.log(\`registry: \${e.message}\`)
  process.exit(1)
})
`

const SUITE = `import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { expect, test } from 'vitest'

test('a package manager fetches its manifest and starts the agent', async () => {
  const { stdout } = await promisify(execFile)('node', ['pm/node_modules/npm/bin/npx-cli.js', 'Spain'])
  expect(stdout).toContain('registry: {"name":"@acme/agent"}')
  expect(stdout).toContain('Madrid')
})
`

describe("a package manager's own process is left as without fluxlab; the program it starts is on the tape", () => {
  let provider: CapitalServer
  let registry: Server
  let registryHits = 0
  let project: Project
  let record: RunResult
  const run = (env: Record<string, string>) =>
    runVitest(project, ['test/pm.test.ts'], { PM_REGISTRY_PORT: String((registry.address() as AddressInfo).port), ...env }, TIMEOUT_MS)

  beforeAll(async () => {
    assertBuilt()
    linkSelf()
    provider = await startCapitalServer()
    registry = createServer((_req, res) => {
      registryHits++
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"name":"@acme/agent"}')
    })
    await new Promise<void>((r) => registry.listen(0, '127.0.0.1', () => r()))
    project = createProject('vitest-children')
    project.write('pm/node_modules/npm/bin/npx-cli.js', NPX)
    project.write('test/pm.test.ts', SUITE)
    record = await run({ PROVIDER_URL: provider.url, OPENAI_API_KEY: KEY })
    await provider.close()
  }, TIMEOUT_MS + 30_000)
  afterAll(async () => {
    project?.remove()
    await new Promise<void>((r) => (registry ? registry.close(() => r()) : r()))
  })

  test('recording: the test passes, the registry is asked directly, and the fixture holds the agent calls, not the registry', () => {
    expect(record.code, record.output).toBe(0)
    expect(registryHits).toBe(1)
    expect(provider.requests.filter((r) => r.kind === 'model')).toHaveLength(2)
    const dirs = project.fixtureDirs()
    expect(dirs).toHaveLength(1)
    const texts = Object.keys(project.scenarioFiles()).map((f) => project.read(`tests/scenarios/${f}`))
    expect(texts.join('\n')).toContain('Spain')
    expect(texts.join('\n')).not.toContain('registry.pm.test')
  })

  test(
    'replay under FLUX_OFFLINE=1, CI=1, the key unset and the provider closed: the test passes, the registry is asked again',
    async () => {
      const hits = provider.hits
      const r = await run({ PROVIDER_URL: provider.url, CI: '1', FLUX_OFFLINE: '1' })
      expect(r.code, r.output).toBe(0)
      expect(r.output).not.toContain('FLUX_OFFLINE:')
      expect(registryHits).toBe(2)
      expect(provider.hits).toBe(hits)
    },
    TIMEOUT_MS + 10_000,
  )
})
