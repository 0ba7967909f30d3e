import { existsSync, mkdtempSync, readdirSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import type { TestContext } from '../context/types.js'
import { perTestMode } from '../context/options.js'
import { coversTest, openTestScenario } from './per-test.js'

const ctx = (testFile: string): TestContext => ({
  runner: 'vitest',
  testName: 't',
  testFile,
  rootDir: '/repo',
  updateState: 'new',
  runs: [],
  opened: new Set(),
})

describe('perTestMode', () => {
  test('is off by default and under "explicit", on under "per-test", from the option or FLUX_SCENARIOS', () => {
    expect(perTestMode({}, {})).toBe(false)
    expect(perTestMode({ scenarios: 'explicit' }, { FLUX_SCENARIOS: 'per-test' })).toBe(false)
    expect(perTestMode({ scenarios: 'per-test' }, {})).toBe(true)
    expect(perTestMode({}, { FLUX_SCENARIOS: 'per-test' })).toBe(true)
  })

  test('an unknown value is FLUX_BAD_CONFIG listing the valid ones', () => {
    expect(() => perTestMode({}, { FLUX_SCENARIOS: 'all' })).toThrow(
      /FLUX_BAD_CONFIG: Failed to read FLUX_SCENARIOS: "all" is not a valid value\. Use one of: 'explicit'.*'per-test'/,
    )
  })
})

describe('coversTest', () => {
  test('covers every test file without include, and only matching files with it', () => {
    expect(coversTest(ctx('/repo/test/a.test.ts'), { scenarios: 'per-test' })).toBe(true)
    const only = { scenarios: 'per-test' as const, include: ['test/agents/**', '*.e2e.ts'] }
    expect(coversTest(ctx('/repo/test/agents/deep/a.test.ts'), only)).toBe(true)
    expect(coversTest(ctx('/repo/x.e2e.ts'), only)).toBe(true)
    expect(coversTest(ctx('/repo/test/unit/a.test.ts'), only)).toBe(false)
    expect(coversTest(ctx('/repo/test/a.test.ts'), { scenarios: 'explicit' })).toBe(false)
  })
})

describe('openTestScenario with no fixture where recording is off', () => {
  // `.invalid` never resolves (RFC 2606): a request that slipped past the refusal fails to connect, never reaching a public address.
  const hosts = { 'api.vendor.invalid': 'openai-chat' as const }
  const refusing = () => {
    const test: TestContext = { ...ctx('/repo/test/a.test.ts'), rootDir: mkdtempSync(join(tmpdir(), 'flux-pt-')), updateState: 'none' }
    return openTestScenario(test, { hosts })
  }

  test('refuses a model call, and the test fails at its end even when it caught the error', async () => {
    const s = refusing()
    let status = 0
    await s.drive(async () => {
      status = (await fetch('https://api.vendor.invalid/v1/chat/completions', { method: 'POST', body: '{"model":"m","messages":[]}' })).status
    })
    expect(status).toBe(400)
    await expect(s.finish(true)).rejects.toThrow('FLUX_NO_RECORDING')
  })

  test('refuses a request to a provider host that is not a model call (a file upload), rather than sending it live', async () => {
    const s = refusing()
    let status = 0
    await s.drive(async () => {
      status = (await fetch('https://api.vendor.invalid/v1/files', { method: 'POST', body: '{"purpose":"batch"}' })).status
    })
    expect(status).toBe(400)
    await expect(s.finish(true)).rejects.toThrow('FLUX_NO_RECORDING')
  })
})

// A server the test's process tree did not start (an emulator the harness runs): listened on with the unpatched method.
const rawListen = createServer().listen as (this: Server, port: number, host: string, ready: () => void) => unknown
const serve = (listen?: (this: Server, port: number, host: string, ready: () => void) => unknown) =>
  new Promise<{ server: Server; url: string }>((resolve) => {
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"forecast":"sunny"}'))
    const ready = () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })
    ;(listen ?? (server.listen as NonNullable<typeof listen>)).call(server, 0, '127.0.0.1', ready)
  })

describe("whole-suite mode: the test's own servers are not the network (issue 38)", () => {
  const servers: Server[] = []
  afterEach(() => {
    delete process.env.FLUX_OFFLINE
    for (const s of servers.splice(0)) s.close()
  })
  const open = (updateState: TestContext['updateState']) => {
    const rootDir = mkdtempSync(join(tmpdir(), 'flux-own-'))
    return { rootDir, s: openTestScenario({ ...ctx(join(rootDir, 'test/a.test.ts')), rootDir, updateState }, {}) }
  }

  test('under FLUX_OFFLINE a request to a server the test started passes; one to a loopback server outside its tree is a network error', async () => {
    process.env.FLUX_OFFLINE = '1'
    const outside = await serve(rawListen)
    servers.push(outside.server)
    const { s } = open('none')
    const seen: unknown[] = []
    await s.drive(async () => {
      const own = await serve()
      servers.push(own.server)
      seen.push((await fetch(`${own.url}/health`, { method: 'HEAD' })).status)
      seen.push(
        await fetch(`${outside.url}/health`).then(
          (r) => r.status,
          (e: Error) => e.name,
        ),
      )
    })
    expect(seen).toEqual([200, 'TypeError'])
    // the test has no fixture where recording is off: that is the cause named, FLUX_OFFLINE's refusal with it, and the command that records it
    await expect(s.finish(true)).rejects.toThrow(
      /FLUX_NO_RECORDING: Failed to send GET 127\.0\.0\.1:\d+\/health in test "t": there is no fixture at .+ and recording is off here \(CI or --ci\); FLUX_OFFLINE=1 forbids every live request, this one too\. Record the test where provider keys are available with `npx vitest run test\/a\.test\.ts -t '\^t\$'`/,
    )
  })

  test('a test that only calls a tool API outside its tree writes a fixture; one that only calls its own server writes none', async () => {
    const outside = await serve(rawListen)
    servers.push(outside.server)
    const tool = open('new')
    await tool.s.drive(async () => {
      expect(await (await fetch(`${outside.url}/v2/forecast?city=Paris`)).json()).toEqual({ forecast: 'sunny' })
    })
    await tool.s.finish(true)
    expect(readdirSync(join(tool.rootDir, 'tests/scenarios'))).toHaveLength(1)
    const own = open('new')
    await own.s.drive(async () => {
      const mine = await serve()
      servers.push(mine.server)
      expect((await fetch(`${mine.url}/v2/forecast?city=Paris`)).status).toBe(200)
    })
    await own.s.finish(true)
    expect(existsSync(join(own.rootDir, 'tests/scenarios'))).toBe(false)
  })
})
