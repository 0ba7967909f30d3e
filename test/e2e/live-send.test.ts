/**
 * Issue 39: a live call is sent by the process that made it. The scripts of test/e2e/projects/vitest-child-routes
 * reach the model vendor only through their own routing (a global undici dispatcher, a fetch wrapper that gives each
 * request a dispatcher, `FLUX_UPSTREAM` in the child's environment only); the vendor's own address is a tripwire, so a
 * call sent by the test's process instead (which has none of that routing) is seen. Recorded in whole-suite mode: each
 * call reaches the provider through the child's route, is in its test's fixture and counted as live; replayed with
 * the provider closed under CI and FLUX_OFFLINE. A call whose route leads nowhere fails in the child with the error it
 * gets without fluxlab, and is still a live call in the summary. The same for an app server under `fluxlab serve`
 * (examples/chat-app in Playwright) whose own undici dispatcher is the only way to the vendor.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { downProviderUrl, startCapitalServer, tripwire, type CapitalServer, type Tripwire } from './support/capital-server.js'
import { assertBuilt, copyProject, createProject, freePort, linkSelf, runPlaywright, runVitest, type Project, type RunResult } from './support/project.js'
import { parseRunSummary } from './support/run-summary.js'

const TIMEOUT = 120_000
const KEY = 'sk-proj-L1veSendsFromTheCh1ldProcessE2eKeyXyZ98a'
if (KEY.length !== 'sk-proj-'.length + 40) throw new Error('live-send e2e: the key is not sk-proj- + 40 characters')

/** Every file under the project's fixtures with its text. */
const fixtureTexts = (p: Project): Array<[string, string]> => Object.keys(p.scenarioFiles()).map((f) => [f, p.read(`tests/scenarios/${f}`)])

describe('child processes whose own routing is the only way to the vendor, in whole-suite mode', () => {
  let provider: CapitalServer
  let vendor: Tripwire
  let vendorUrl: string
  let down: string
  let project: Project
  let record: RunResult
  const env = () => ({ VENDOR_URL: vendorUrl, ROUTE_TO: provider.url, GEO_URL: provider.url, DOWN_URL: down })

  beforeAll(async () => {
    assertBuilt()
    linkSelf()
    provider = await startCapitalServer()
    vendorUrl = await downProviderUrl()
    vendor = await tripwire(vendorUrl)
    down = await downProviderUrl()
    project = createProject('vitest-child-routes')
    const upstream = `${new URL(vendorUrl).host}=${provider.url}`
    record = await runVitest(project, [], { ...env(), CHILD_UPSTREAM: upstream, OPENAI_API_KEY: KEY }, TIMEOUT)
  }, TIMEOUT)
  afterAll(async () => {
    await vendor?.close()
    await provider?.close()
    project?.remove()
  })

  test("recording sends every call through the child's own route, and counts each as live", () => {
    expect(record.code, record.output).toBe(0)
    expect(vendor.connections, 'connections to the vendor address, which only the children know how to route').toBe(0)
    const models = provider.requests.filter((r) => r.kind === 'model').map((r) => `${r.country} ${r.turn}`)
    expect(models.sort()).toEqual(['France 1', 'France 2', 'Japan 1', 'Japan 2', 'UK 1', 'UK 2'])
    const s = parseRunSummary(record.output)
    expect(s, record.output).toBeDefined()
    // six answered calls, and the one whose route led nowhere: live all the same
    expect(s!.liveModelCalls, s!.line).toBe(7)
    expect(s!.tests, s!.line).toEqual({ passed: 4, failed: 0, skipped: 0, refusals: {} })
  })

  test("each test's fixture holds its child's calls, at the vendor's address, and no key", () => {
    const models = Object.entries(project.scenarioFiles()).filter(([f]) => f.endsWith('/model.jsonl'))
    const asked = models.map(([f]) => [...project.read(`tests/scenarios/${f}`).matchAll(/capital of (\w+)\?/g)].map((m) => m[1])[0]).sort()
    expect(asked).toEqual(['France', 'Japan', 'UK', undefined].sort())
    for (const [f] of models) {
      expect(project.read(`tests/scenarios/${f}`), f).toContain(`${new URL(vendorUrl).host}/v1/chat/completions`)
      expect(project.read(`tests/scenarios/${f}`), f).not.toContain(new URL(provider.url).host)
    }
    const refused = models.find(([f]) => !/capital of/.test(project.read(`tests/scenarios/${f}`)))
    expect(refused && project.read(`tests/scenarios/${refused[0]}`)).toContain('ECONNREFUSED')
    for (const [file, text] of fixtureTexts(project)) {
      expect(text, file).not.toContain(KEY)
      expect(text, file).not.toContain(KEY.slice(8))
    }
  })

  test(
    'replay with the provider closed, no key, CI=1 and FLUX_OFFLINE=1 passes and sends nothing',
    async () => {
      const seen = vendor.connections
      await provider.close()
      const wire = await tripwire(provider.url)
      try {
        const r = await runVitest(project, ['test/routes.test.ts'], { ...env(), CI: '1', FLUX_OFFLINE: '1' }, TIMEOUT)
        expect(r.code, r.output).toBe(0)
        expect(wire.connections, 'connections to the closed provider').toBe(0)
        expect(vendor.connections - seen, 'connections to the vendor address').toBe(0)
        const s = parseRunSummary(r.output)
        expect(s?.line, r.output).toContain('3 scenarios: 3 replayed, 0 recorded')
        expect(s!.tests, s!.line).toEqual({ passed: 3, failed: 0, skipped: 0, refusals: {} })
        expect(s!.liveModelCalls, s!.line).toBe(0)
      } finally {
        await wire.close()
      }
    },
    TIMEOUT,
  )
})

// The app server's own way to the vendor, loaded before its code (`node --import`): Playwright's workers, which hold
// the tapes, have none.
const SERVER_ROUTE = `import { Agent, setGlobalDispatcher } from 'undici'
const vendor = new URL(process.env.VENDOR_URL).origin
setGlobalDispatcher(new Agent().compose((dispatch) => (opts, handler) => dispatch(new URL(String(opts.origin)).origin === vendor ? { ...opts, origin: process.env.ROUTE_TO } : opts, handler)))
`

describe('a Playwright suite whose app server (under fluxlab serve) alone knows the way to the vendor', () => {
  let provider: CapitalServer
  let vendor: Tripwire
  let vendorUrl: string
  let project: Project
  let port: number
  const run = (json: string, env: Record<string, string>) =>
    runPlaywright(
      project,
      [],
      {
        PORT: String(port),
        PW_JSON: json,
        OPENAI_BASE_URL: `${provider.url}/v1`,
        GEO_URL: provider.url,
        SERVER_VENDOR: vendorUrl,
        SERVER_ROUTE_TO: provider.url,
        ...env,
      },
      180_000,
    )

  beforeAll(async () => {
    assertBuilt()
    linkSelf()
    port = await freePort()
    provider = await startCapitalServer()
    vendorUrl = await downProviderUrl()
    vendor = await tripwire(vendorUrl)
    project = copyProject('examples/chat-app')
    project.write('route-vendor.mjs', SERVER_ROUTE)
    project.edit('playwright.config.ts', "command: 'node server.mjs'", "command: 'node --import ./route-vendor.mjs server.mjs'")
    // only the server's environment names the vendor (the workers' judge asks the provider directly)
    project.edit(
      'playwright.config.ts',
      'env: { PORT: String(PORT) },',
      "env: { PORT: String(PORT), OPENAI_BASE_URL: `${process.env.SERVER_VENDOR}/v1`, VENDOR_URL: process.env.SERVER_VENDOR ?? '', ROUTE_TO: process.env.SERVER_ROUTE_TO ?? '' },",
    )
  }, 30_000)
  afterAll(async () => {
    await vendor?.close()
    await provider?.close()
    project?.remove()
  })

  test("recording sends the server's calls through the server's own route and counts them; replay offline sends nothing", async () => {
    const record = await run('record.json', { OPENAI_API_KEY: KEY })
    expect(record.code, record.output).toBe(0)
    expect(vendor.connections, 'connections to the vendor address, which only the app server knows how to route').toBe(0)
    expect(provider.requests.filter((r) => r.kind === 'model')).toHaveLength(8)
    const recorded = parseRunSummary(record.output)
    expect(recorded?.line, record.output).toContain('4 scenarios: 0 replayed, 4 recorded')
    expect(recorded?.tests).toEqual({ passed: 5, failed: 0, skipped: 0, refusals: {} })
    expect(recorded?.liveModelCalls).toBe(8)
    for (const [file, text] of fixtureTexts(project)) {
      expect(text, file).not.toContain(KEY.slice(8))
      if (file.endsWith('/model.jsonl')) expect(text, file).toContain(`${new URL(vendorUrl).host}/v1/chat/completions`)
    }
    await provider.close()
    const wire = await tripwire(provider.url)
    try {
      const seen = vendor.connections
      const r = await run('replay.json', { CI: '1', FLUX_OFFLINE: '1' })
      expect(r.code, r.output).toBe(0)
      expect(wire.connections, 'connections to the closed provider').toBe(0)
      expect(vendor.connections - seen, 'connections to the vendor address').toBe(0)
      const replayed = parseRunSummary(r.output)
      expect(replayed?.line, r.output).toContain('4 scenarios: 4 replayed, 0 recorded')
      expect(replayed?.tests).toEqual({ passed: 5, failed: 0, skipped: 0, refusals: {} })
      expect(replayed?.liveModelCalls).toBe(0)
    } finally {
      await wire.close()
    }
  }, 400_000)
})
