/**
 * Issue 27: Playwright Test as the third runner, on the example app (examples/chat-app): a chat page whose server
 * route streams an OpenAI answer (the real `openai` SDK, server-sent events to the page) and calls one HTTP tool.
 * The app server runs as Playwright's `webServer` under `fluxlab serve`; the tests import `test` and `expect` from
 * fluxlab/playwright and run in a real browser (the Chromium `@sparticuz/chromium` ships in its npm package), two
 * workers, fully parallel. Recorded against the local provider, then replayed with the provider closed (a tripwire
 * counts every connection to its address), the key unset, CI=1 and FLUX_OFFLINE=1: every test keeps its record-run
 * status, each test's fixture holds its own calls and no other test's, the page gets as many stream events as it
 * did while recording, and nothing is sent. Under CI, a test the tape cannot serve fails naming the call and the
 * command that records it.
 */
import { readdirSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startCapitalServer, tripwire, type CapitalServer, type Tripwire } from './support/capital-server.js'
import { assertBuilt, copyProject, linkSelf, runPlaywright, type Project, type RunResult } from './support/project.js'
import { parseRunSummary } from './support/run-summary.js'

const TIMEOUT = 180_000
const KEY = 'sk-proj-Pl4ywr1ghtRec0rdingKey0nlyF0rTh1sE2eTest7'
const COUNTRIES = { UK: 'London', France: 'Paris', Japan: 'Tokyo', Italy: 'Rome' }
const asks = (country: string) => `answers the capital of ${country}, streamed token by token`
const PLAIN = 'shows the page without asking anything'
const PACE_MS = 25

interface Spec {
  title: string
  tests: Array<{ results: Array<{ status: string; annotations?: Array<{ type: string; description?: string }> }> }>
}
interface Suite {
  specs?: Spec[]
  suites?: Suite[]
}

/** What the page saw of one answer (examples/chat-app/server.mjs): its stream events, and their spans in ms. */
interface Seen {
  status: string
  events?: string
  /** First token to last, by the page's clock: when the page's event loop got to each event. */
  span?: number
  /** First token to last, by the server's clock: when the server sent each event (each one carries it). */
  sent?: number
  /** When the server sent the last token, after the page saw the first one. */
  ahead?: number
}

/** Each test's status and its annotations. */
function report(p: Project, file: string): Record<string, Seen> {
  const out: Record<string, Seen> = {}
  const walk = (s: Suite) => {
    for (const spec of s.specs ?? []) {
      const result = spec.tests[0]?.results.at(-1)
      const note = (type: string) => result?.annotations?.find((a) => a.type === type)?.description
      const events = note('events')
      const ms = Object.fromEntries((['span', 'sent', 'ahead'] as const).flatMap((k) => (note(k) ? [[k, Number(note(k))]] : [])))
      out[spec.title] = { status: result?.status ?? 'missing', ...(events !== undefined ? { events } : {}), ...ms }
    }
    for (const child of s.suites ?? []) walk(child)
  }
  walk(JSON.parse(p.read(file)) as Suite)
  return out
}

/** A free port on 127.0.0.1 for the app server. */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

describe('a Playwright suite of an AI web app (examples/chat-app), its server under fluxlab serve', () => {
  let server: CapitalServer
  let wire: Tripwire | undefined
  let project: Project
  let record: RunResult
  let recorded: ReturnType<typeof report>
  let port: number
  const run = (json: string, env: Record<string, string>, args: string[] = []) =>
    runPlaywright(project, args, { PORT: String(port), PW_JSON: json, OPENAI_BASE_URL: `${server.url}/v1`, GEO_URL: server.url, ...env }, TIMEOUT)

  beforeAll(async () => {
    assertBuilt()
    linkSelf()
    port = await freePort()
    project = copyProject('examples/chat-app')
    // The provider paces its events, as a real one does: the page's tokens come over a while.
    server = await startCapitalServer({ paceMs: PACE_MS })
    record = await run('record.json', { OPENAI_API_KEY: KEY })
    recorded = report(project, 'record.json')
    await server.close()
    wire = await tripwire(server.url)
  }, TIMEOUT)
  afterAll(async () => {
    await wire?.close()
    project?.remove()
  })

  test('recording runs every test in the browser and passes, sending each server-side call once', () => {
    expect(record.code, record.output).toBe(0)
    expect(Object.fromEntries(Object.entries(recorded).map(([t, r]) => [t, r.status]))).toEqual({
      ...Object.fromEntries(Object.keys(COUNTRIES).map((c) => [asks(c), 'passed'])),
      [PLAIN]: 'passed',
    })
    expect(record.output).toMatch(/Running 5 tests using 2 workers/)
    const sent = server.requests.map((r) => `${r.kind} ${r.country} ${r.turn ?? ''}`.trim()).sort()
    expect(sent).toEqual(
      Object.keys(COUNTRIES)
        .flatMap((c) => [`model ${c} 1`, `model ${c} 2`, `tool ${c}`])
        .sort(),
    )
    for (const c of Object.keys(COUNTRIES)) expect(Number(recorded[asks(c)].events), c).toBeGreaterThan(1)
    // the summary reporter's counts are the runner's, and the live calls are the server's
    const summary = parseRunSummary(record.output)
    expect(summary?.line, record.output).toContain('4 scenarios: 0 replayed, 4 recorded (1 test with no model call: nothing to record)')
    expect(summary?.tests).toEqual({ passed: 5, failed: 0, skipped: 0, refusals: {} })
    expect(summary?.liveModelCalls).toBe(8)
  })

  test("each test's fixture holds its own calls only (0 cross-talk between the workers), and no key", () => {
    const dirs = readdirSync(project.path('tests/scenarios'))
    expect(dirs).toHaveLength(Object.keys(COUNTRIES).length)
    for (const [country, capital] of Object.entries(COUNTRIES)) {
      const dir = dirs.find((d) => d.includes(`capital-of-${country.toLowerCase()}-`))
      expect(dir, country).toBeDefined()
      const files = ['model.jsonl', 'tools.jsonl', 'scenario.yaml', 'trace.snap'].map((f) => project.read(`tests/scenarios/${dir}/${f}`)).join('\n')
      expect(project.read(`tests/scenarios/${dir}/scenario.yaml`)).toMatch(/runner: playwright/)
      expect(project.read(`tests/scenarios/${dir}/trace.snap`)).toContain(`text: "The capital of the ${country} is ${capital}."`)
      for (const other of Object.keys(COUNTRIES).filter((o) => o !== country))
        expect(files, `${country}'s fixture`).not.toMatch(new RegExp(`capital of (the )?${other}\\b|country=${other}\\b`))
      expect(files).not.toContain(KEY.slice(8))
      // the judge graded the answer the page shows, once, onto this test's tape
      expect(project.read(`tests/scenarios/${dir}/judge.jsonl`)).toMatch(
        new RegExp(`"criterion":"the answer names ${capital} as the capital of ${country}".*"verdict":"PASS"`),
      )
    }
    expect(project.exists('tests/scenarios/app-server')).toBe(false)
  })

  test(
    'replay with the provider closed, the key unset, CI=1 and FLUX_OFFLINE=1: every test keeps its status, the page gets the recorded stream, nothing is sent',
    async () => {
      const r = await run('replay.json', { CI: '1', FLUX_OFFLINE: '1' })
      const replayed = report(project, 'replay.json')
      expect.soft(r.code, r.output).toBe(0)
      expect
        .soft(Object.fromEntries(Object.entries(replayed).map(([t, x]) => [t, x.status])))
        .toEqual(Object.fromEntries(Object.entries(recorded).map(([t, x]) => [t, x.status])))
      // the count of EventSource messages at the browser equals the recording's
      for (const c of Object.keys(COUNTRIES)) expect.soft(replayed[asks(c)].events, c).toBe(recorded[asks(c)].events)
      expect.soft(r.output).toMatch(/Running 5 tests using 2 workers/)
      expect.soft(wire!.connections, 'connections to the closed provider during replay').toBe(0)
      const summary = parseRunSummary(r.output)
      expect.soft(summary?.line, r.output).toContain('4 scenarios: 4 replayed, 0 recorded')
      expect.soft(summary?.tests).toEqual({ passed: 5, failed: 0, skipped: 0, refusals: {} })
      expect.soft(summary?.liveModelCalls).toBe(0)
      expect.soft(summary?.line).toContain('hermetic 4/4')
    },
    TIMEOUT,
  )

  test(
    "with timing: 'recorded', the page gets its tokens at the recorded pace; by default as fast as it reads them",
    async () => {
      const fast = report(project, 'replay.json')
      project.edit('playwright.config.ts', 'use: { baseURL:', "use: { fluxlab: { timing: 'recorded' }, baseURL:")
      const r = await run('paced.json', { CI: '1', FLUX_OFFLINE: '1' })
      const paced = report(project, 'paced.json')
      project.edit('playwright.config.ts', "use: { fluxlab: { timing: 'recorded' }, baseURL:", 'use: { baseURL:')
      expect(r.code, r.output).toBe(0)
      // @note The pace is read by the server's clock, which each event carries to the page: a page whose browser gets no
      // CPU for a while (a loaded machine) reads the events it missed in one go, so its own clock squeezed a 200 ms answer
      // into 0-16 ms while the server had sent them at the recorded pace. A stalled sender only stretches a span.
      // Summed over the four answers too: a loaded machine stretches one answer's span; the tape's pace is not noisy.
      let onTape = 0
      let atPace = 0
      let atOnce = 0
      let ahead = -Infinity
      for (const c of Object.keys(COUNTRIES)) {
        // the span of the tokens on the tape: from the first chunk that carries one to the last (its recorded offsets)
        const dir = readdirSync(project.path('tests/scenarios')).find((d) => d.includes(`capital-of-${c.toLowerCase()}-`))!
        const answer = project
          .read(`tests/scenarios/${dir}/model.jsonl`)
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { response: { chunks: Array<{ t: number; text: string }> } })[1]
        const tokens = answer.response.chunks.filter((k) => /"content":"[^"]/.test(k.text))
        const span = tokens.at(-1)!.t - tokens[0].t
        // several events PACE_MS apart while recording
        expect(span, c).toBeGreaterThanOrEqual(3 * PACE_MS)
        const page = paced[asks(c)]
        expect.soft(page.sent, `${c}: ${span} ms on the tape (${page.span} ms by the page's clock)`).toBeGreaterThanOrEqual(0.5 * span)
        expect.soft(page.events, c).toBe(recorded[asks(c)].events)
        onTape += span
        atPace += page.sent ?? 0
        atOnce += fast[asks(c)].sent ?? 0
        ahead = Math.max(ahead, page.ahead ?? -Infinity)
      }
      expect.soft(atPace, `the tokens' spans at the page with timing 'recorded', against ${onTape} ms on the tape`).toBeGreaterThanOrEqual(0.75 * onTape)
      expect.soft(atOnce, `the tokens' spans at the page by default, against ${onTape} ms on the tape`).toBeLessThanOrEqual(0.35 * onTape)
      // the page reads the stream as it comes, not once it ended: in some answer, the first token was on the page before
      // the server sent the last (a page that stalls through all four answers is the only way to miss it)
      expect.soft(ahead, "how long the server still streamed after the page showed an answer's first token, at best").toBeGreaterThan(0)
    },
    TIMEOUT,
  )

  test(
    '--update-snapshots rewrites a trace.snap that no longer matches, offline, and changes nothing else',
    async () => {
      const dir = readdirSync(project.path('tests/scenarios')).find((d) => d.includes('capital-of-uk-'))!
      const trace = `tests/scenarios/${dir}/trace.snap`
      const good = project.read(trace)
      const model = project.read(`tests/scenarios/${dir}/model.jsonl`)
      project.write(trace, good.replace('London', 'Londres'))
      const r = await run('update.json', { CI: '1', FLUX_OFFLINE: '1' }, ['--update-snapshots'])
      expect(r.code, r.output).toBe(0)
      expect(project.read(trace)).toBe(good)
      expect(project.read(`tests/scenarios/${dir}/model.jsonl`)).toBe(model)
      expect(wire!.connections).toBe(0)
    },
    TIMEOUT,
  )

  // The Japan test asks a second question once the first is answered: a third model call, which its tape does not have.
  test(
    'under CI, a test that asks what its tape does not have fails, naming the call and the command that records it; a new test names how to record it',
    async () => {
      project.edit(
        'tests/chat.spec.ts',
        "await page.getByRole('button', { name: 'Ask' }).click()",
        "await page.getByRole('button', { name: 'Ask' }).click()\n    if (country === 'Japan') {\n      await expect(page.locator('#answer')).toHaveAttribute('data-done', 'yes')\n      await page.getByLabel('question').fill('What is the capital of Italy? Use the tool.')\n      await page.getByRole('button', { name: 'Ask' }).click()\n    }",
      )
      project.write(
        'tests/new.spec.ts',
        "import { test, expect } from './fixtures.js'\n\ntest('asks a question nobody recorded', async ({ page }) => {\n  await page.goto('/')\n  await page.getByLabel('question').fill('What is the capital of UK? Use the tool.')\n  await page.getByRole('button', { name: 'Ask' }).click()\n  await expect(page.locator('#answer')).toHaveAttribute('data-done', 'yes', { timeout: 3000 })\n})\n",
      )
      // A request that carries no test: sent by the test process itself, outside the browser context fluxlab/playwright
      // sets up (a context made with `browser.newContext()` inside a test gets the test's options, so it carries it too).
      // The server's call for it is the server's own, refused under CI (no app-server fixture), and the summary names it.
      project.write(
        'tests/outside.spec.ts',
        "import { test, expect } from './fixtures.js'\n\ntest('a request without a test identity', async ({ baseURL }) => {\n  const res = await fetch(`${baseURL}/api/chat?q=${encodeURIComponent('What is the capital of UK? Use the tool.')}`)\n  const text = await res.text()\n  expect(text).toContain('event: failed')\n  expect(text).toContain('FLUX_NO_RECORDING')\n})\n",
      )
      const r = await run('changed.json', { CI: '1', FLUX_OFFLINE: '1' })
      const changed = report(project, 'changed.json')
      expect.soft(changed['a request without a test identity']?.status, r.output).toBe('passed')
      expect
        .soft(r.output)
        .toMatch(/the app server made 1 call outside every test's browser request .*: 1 refused \(its own scenario app-server has no fixture here\)/)
      expect.soft(r.code).toBe(1)
      expect.soft(changed[asks('Japan')]?.status, r.output).toBe('failed')
      expect.soft(changed['asks a question nobody recorded']?.status, r.output).toBe('failed')
      for (const c of ['UK', 'France', 'Italy']) expect.soft(changed[asks(c)]?.status, r.output).toBe('passed')
      expect.soft(r.output).toMatch(/model_index_overflow[\s\S]*app server/)
      expect.soft(r.output).toContain(`FLUX_GOLDEN=update npx playwright test tests/chat.spec.ts -g 'answers the capital of Japan, streamed token by token$'`)
      expect.soft(r.output).toMatch(/FLUX_NO_RECORDING[\s\S]*npx playwright test tests\/new\.spec\.ts -g 'asks a question nobody recorded\$'/)
      expect.soft(wire!.connections, 'connections to the closed provider').toBe(0)
      expect.soft(parseRunSummary(r.output)?.tests).toEqual({ passed: 5, failed: 2, skipped: 0, refusals: { FLUX_DIVERGED: 1, FLUX_NO_RECORDING: 1 } })
    },
    TIMEOUT,
  )
})
