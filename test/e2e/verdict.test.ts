/**
 * Issue 24, item 6: adopting fluxlab keeps the suite's verdict. A multi-provider suite written without
 * fluxlab (8 providers, each behind a skip gate on its own key variable, two of them names no built-in
 * list has; clients built at import; `retry`; a test with no model call; a known-failing test; a todo),
 * adopted by config lines alone, in vitest and in jest. Each kit runs:
 * - A: the suite as it was (the adopted project minus its `// fluxlab` lines and its `test/fluxlab/`
 *   directory), live against the provider emulator with 2 of the 8 keys set;
 * - B: the adopted suite recording, same 2 keys: every test has its A status, fixtures only for the
 *   tests that made a model call, each naming the variable its key came from, and no key value on disk;
 * - C: the adopted suite replaying with every key unset, CI=1 and the emulator down (a port that counts
 *   what still connects): every test has its A status, 0 connections;
 * - the run summary's counts are the runner's own (B and C);
 * - a new key-gated test for a recorded provider, with no fixture, fails under CI with
 *   FLUX_NO_RECORDING and the command that records it, every other test keeping its status;
 * - FLUX_OFFLINE=1: a test with no fixture is refused its plain HTTP request (FLUX_OFFLINE), to a local
 *   server (0 requests reach it) and to a host that does not resolve.
 * - Issue 38 (items 3, 9, 10), the test's own servers are not the network: a server the test process starts in
 *   `beforeAll` (`listen(0)`, checked with `HEAD /health`, next to a model call) and one a child process starts on a
 *   loopback port (polled until it answers) are never recorded or refused, and no fixture holds their random ports;
 *   a test that makes only non-model HTTP to an outside tool API (routed to a server of the harness by its
 *   base-URL variable, as the providers are) has a fixture, so C replays it under FLUX_OFFLINE=1 with 0 requests.
 *
 * The explicit `scenario()` tests live in `test/fluxlab/`, in the adopted copy only: they were written
 * for fluxlab, so there is no run "without fluxlab" to hold them to. They are held to their recording (B)
 * and to the statuses their gates give them. Putting them in a file both copies share would either run
 * fluxlab in A (`fluxlab` resolves from the repo's node_modules, and `scenario()` records there), or need
 * a switch in the test body that makes the two copies differ in more than config lines.
 *
 * `E2E_KEEP=1` keeps the projects under .e2e-tmp/, each run's JSON report and output (`<run>.log`) in it.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { readdirSync, readFileSync, rmSync } from 'node:fs'
import { join, relative } from 'node:path'
import { parse as parseYaml } from 'yaml'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { fakeKeys, PROVIDERS, startProviderEmulator, type ProviderEmulator } from './support/provider-emulator.js'
import { assertBuilt, createProject, linkSelf, REPO, runJest, runVitest, type Project, type RunResult } from './support/project.js'
import { parseRunSummary } from './support/run-summary.js'

const TIMEOUT = 180_000
const KEYS = fakeKeys()
/**
 * Issue 38 item 4: a key no provider reads, set live and while recording, that closes every test of its file
 * (`const t = process.env.TRANSLATE_API_KEY ? it : it.skip; t.skip(…)`), so the file writes no fixture.
 */
const GATE_KEY = 'TRANSLATE_API_KEY'
const GATE_VALUE = `tr_live_${'7f3a9c2e'.repeat(4)}`

// Every key variable fluxlab knows, and the suites' own: none of the parent's may reach a child run.
const KEY_VARS = [
  ...['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY', 'AZURE_OPENAI_API_KEY', 'AZURE_API_KEY'],
  ...['MISTRAL_API_KEY', 'GROQ_API_KEY', 'XAI_API_KEY', 'DEEPSEEK_API_KEY', 'OPENROUTER_API_KEY', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'],
  ...Object.keys(KEYS),
  GATE_KEY,
]
for (const v of [...KEY_VARS, ...Object.values(PROVIDERS).map((p) => p.baseVar), 'STATUS_URL']) delete process.env[v]

type Status = 'passed' | 'failed' | 'skipped' | 'todo'

interface JsonReport {
  numPassedTests: number
  numFailedTests: number
  numPendingTests: number
  numTodoTests?: number
  testResults: Array<{ name: string; assertionResults: Array<{ ancestorTitles: string[]; title: string; status: string; failureMessages?: string[] }> }>
}

interface TestRow {
  status: Status
  /** The codes of fluxlab errors in its failure messages. */
  codes: string[]
  failure: string
}

interface Run {
  result: RunResult
  report: JsonReport
  /** `<file> > <describe> > <test>` → row. */
  tests: Map<string, TestRow>
  /** The full name a fixture's `source.name` holds → the row key. */
  byFixtureName: Map<string, string>
}

interface Kit {
  name: 'vitest' | 'jest'
  template: 'vitest-verdict' | 'jest-verdict'
  config: string
  /** The two keys set live and while recording. */
  keys: [string, string]
  /** How the runner joins describe and test names in the full name a fixture is named from. */
  sep: string
  run(p: Project, json: string, env: Record<string, string>): Promise<RunResult>
  /** Every test of the suite as it was (in both copies): its status live with `keys` set. */
  suite: Record<string, Status>
  /** Of those, the ones that call a model, with the variable whose key their request carries. */
  calls: Record<string, string>
  /** Of those, the ones that make only non-model HTTP to a host outside their process tree: a fixture with no key. */
  toolOnly: string[]
  /** The tests written for fluxlab (`test/fluxlab/`, adopted copy only): the status their gates give them. */
  explicit: Record<string, Status>
  /** Their named fixtures, with the variable whose key the request carries. */
  explicitFixtures: Record<string, string>
  /** Step 5: one more key-gated test for a recorded provider, put in before `before` in `file`. */
  added: { file: string; before: string; text: string; row: string; command: string }
  /** Step 6: a test file with no fixture that makes plain HTTP requests. */
  offline: { file: string; text: string; rows: string[] }
}

const OFFLINE_TESTS = (imports: string) => `${imports}
test('reads the status page of a local service', async () => {
  const res = await fetch(\`\${process.env.STATUS_URL}/status\`)
  expect(res.status).toBe(200)
})

test('reads the status page of a host that does not resolve', async () => {
  const res = await fetch('http://status.verdict-e2e.invalid/status')
  expect(res.status).toBe(200)
})
`

/** A file's own scenario (its calls outside every test: a `beforeAll` warm-up): its `source.name`, and its row in `calls`. */
const OUTSIDE = '(outside tests)'

const KITS: Kit[] = [
  {
    name: 'vitest',
    template: 'vitest-verdict',
    config: 'vitest.config.ts',
    keys: ['OPENAI_API_KEY', 'FIREWORKS_API_KEY'],
    sep: ' > ',
    // Two workers: the measured bug shows when several workers record at once.
    run: (p, json, env) => runVitest(p, ['--maxWorkers=2', '--reporter=default', '--reporter=json', `--outputFile.json=${json}`], env),
    suite: {
      'test/openai.test.ts > openai agent > answers France': 'passed',
      'test/openai.test.ts > openai agent > answers Japan with a client built for the call': 'passed',
      'test/openai.test.ts > openai agent > lists the models it can use, and nothing else': 'passed',
      'test/openai.test.ts > counts words without any model call': 'passed',
      'test/openai.test.ts > answers in the language of the question': 'todo',
      'test/fireworks.test.ts > fireworks > answers Italy': 'passed',
      'test/fireworks.test.ts > fireworks > streams Spain': 'passed',
      'test/anthropic.test.ts > anthropic > answers Kenya': 'skipped',
      'test/anthropic.test.ts > anthropic > streams Peru': 'skipped',
      'test/groq.test.ts > groq > answers Egypt': 'skipped',
      'test/gemini.test.ts > gemini > answers Canada': 'skipped',
      'test/gemini.test.ts > gemini > streams Chile': 'skipped',
      'test/mistral.test.ts > mistral over fetch > answers Norway': 'skipped',
      'test/xai.test.ts > xai > streams Greece': 'skipped',
      'test/gateway.test.ts > llm gateway > streams Poland': 'skipped',
      'test/format.test.ts > formats an answer as one sentence': 'passed',
      'test/format.test.ts > parses a price with a thousands separator': 'failed',
      'test/translate.test.ts > translates a greeting': 'skipped',
      'test/translate.test.ts > translates a farewell': 'skipped',
      'test/health.test.ts > health endpoint next to the agent > is up, and the agent answers Germany': 'passed',
      'test/search.test.ts > the search service finds a city': 'passed',
      'test/weather.test.ts > reads the forecast the forecast tool would give': 'passed',
    },
    calls: {
      [`test/openai.test.ts > ${OUTSIDE}`]: 'OPENAI_API_KEY',
      'test/openai.test.ts > openai agent > answers France': 'OPENAI_API_KEY',
      'test/openai.test.ts > openai agent > answers Japan with a client built for the call': 'OPENAI_API_KEY',
      'test/openai.test.ts > openai agent > lists the models it can use, and nothing else': 'OPENAI_API_KEY',
      'test/fireworks.test.ts > fireworks > answers Italy': 'FIREWORKS_API_KEY',
      'test/fireworks.test.ts > fireworks > streams Spain': 'FIREWORKS_API_KEY',
      'test/health.test.ts > health endpoint next to the agent > is up, and the agent answers Germany': 'OPENAI_API_KEY',
    },
    toolOnly: ['test/weather.test.ts > reads the forecast the forecast tool would give'],
    explicit: {
      'test/fluxlab/explicit.test.ts > explicit openai > replays Portugal from its own fixture': 'passed',
      'test/fluxlab/explicit.test.ts > explicit fireworks > replays Germany from its own fixture': 'passed',
      'test/fluxlab/explicit.test.ts > explicit anthropic > replays Kenya from its own fixture': 'skipped',
    },
    explicitFixtures: { 'explicit-openai-portugal': 'OPENAI_API_KEY', 'explicit-fireworks-germany': 'FIREWORKS_API_KEY' },
    added: {
      file: 'test/fireworks.test.ts',
      before: "  it('answers Italy'",
      text: "  it('answers Egypt too', async () => {\n    const res = await fireworks.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'What is the capital of Egypt?' }] })\n    expect(res.choices[0].message.content).toContain('Cairo')\n  })\n\n",
      row: 'test/fireworks.test.ts > fireworks > answers Egypt too',
      command: "npx vitest run test/fireworks.test.ts -t '^fireworks answers Egypt too$'",
    },
    offline: {
      file: 'test/status.test.ts',
      text: OFFLINE_TESTS("import { expect, test } from 'vitest'\n"),
      rows: ['test/status.test.ts > reads the status page of a local service', 'test/status.test.ts > reads the status page of a host that does not resolve'],
    },
  },
  {
    name: 'jest',
    template: 'jest-verdict',
    config: 'jest.config.cjs',
    // A custom name sent as a bearer token, and a key that travels in the query string.
    keys: ['MY_GATEWAY_TOKEN', 'GEMINI_API_KEY'],
    sep: ' ',
    run: (p, json, env) => runJest(p, ['--json', `--outputFile=${json}`], env),
    suite: {
      'test/gateway.test.cjs > gateway agent > answers France': 'passed',
      'test/gateway.test.cjs > gateway agent > answers Japan with a client built for the call': 'passed',
      'test/gateway.test.cjs > gateway agent > lists the models of the gateway, and nothing else': 'passed',
      'test/gateway.test.cjs > counts words without any model call': 'passed',
      'test/gateway.test.cjs > answers in the language of the question': 'todo',
      'test/gemini.test.cjs > gemini over REST > answers Canada': 'passed',
      'test/gemini.test.cjs > gemini over REST > streams Chile': 'passed',
      'test/openai.test.cjs > openai > answers Italy': 'skipped',
      'test/anthropic.test.cjs > anthropic with the AI SDK > answers Kenya': 'skipped',
      'test/anthropic.test.cjs > anthropic with the AI SDK > answers Peru': 'skipped',
      'test/groq.test.cjs > groq > streams Egypt': 'skipped',
      'test/mistral.test.cjs > mistral over fetch > answers Norway': 'skipped',
      'test/xai.test.cjs > xai > answers Greece': 'skipped',
      'test/fireworks.test.cjs > fireworks > answers Spain': 'skipped',
      'test/format.test.cjs > formats an answer as one sentence': 'passed',
      'test/format.test.cjs > parses a price with a thousands separator': 'failed',
      'test/translate.test.cjs > translates a greeting': 'skipped',
      'test/translate.test.cjs > translates a farewell': 'skipped',
      'test/health.test.cjs > health endpoint next to the agent > is up, and the agent answers Germany': 'passed',
      'test/search.test.cjs > the search service finds a city': 'passed',
      'test/weather.test.cjs > reads the forecast the forecast tool would give': 'passed',
    },
    calls: {
      [`test/gateway.test.cjs > ${OUTSIDE}`]: 'MY_GATEWAY_TOKEN',
      'test/gateway.test.cjs > gateway agent > answers France': 'MY_GATEWAY_TOKEN',
      'test/gateway.test.cjs > gateway agent > answers Japan with a client built for the call': 'MY_GATEWAY_TOKEN',
      'test/gateway.test.cjs > gateway agent > lists the models of the gateway, and nothing else': 'MY_GATEWAY_TOKEN',
      'test/gemini.test.cjs > gemini over REST > answers Canada': 'GEMINI_API_KEY',
      'test/gemini.test.cjs > gemini over REST > streams Chile': 'GEMINI_API_KEY',
      'test/health.test.cjs > health endpoint next to the agent > is up, and the agent answers Germany': 'MY_GATEWAY_TOKEN',
    },
    toolOnly: ['test/weather.test.cjs > reads the forecast the forecast tool would give'],
    explicit: {
      'test/fluxlab/explicit.test.cjs > explicit gateway > replays Portugal from its own fixture': 'passed',
      'test/fluxlab/explicit.test.cjs > explicit gemini > replays Germany from its own fixture': 'passed',
      'test/fluxlab/explicit.test.cjs > explicit openai > replays Kenya from its own fixture': 'skipped',
    },
    explicitFixtures: { 'explicit-gateway-portugal': 'MY_GATEWAY_TOKEN', 'explicit-gemini-germany': 'GEMINI_API_KEY' },
    added: {
      file: 'test/gemini.test.cjs',
      before: "  it('answers Canada'",
      text: "  it('answers Egypt too', async () => {\n    const res = await fetch(`${BASE}:generateContent?key=${process.env.GEMINI_API_KEY}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body('What is the capital of Egypt?') })\n    expect(textOf(await res.json())).toContain('Cairo')\n  })\n\n",
      row: 'test/gemini.test.cjs > gemini over REST > answers Egypt too',
      command: "npx jest test/gemini.test.cjs -t '^gemini over REST answers Egypt too$'",
    },
    offline: {
      file: 'test/status.test.cjs',
      text: OFFLINE_TESTS(''),
      rows: ['test/status.test.cjs > reads the status page of a local service', 'test/status.test.cjs > reads the status page of a host that does not resolve'],
    },
  },
]

/** Read a run's JSON report into rows keyed `<file> > <describe> > <test>`. */
function readRun(p: Project, json: string, result: RunResult, sep: string): Run {
  p.write(json.replace(/\.json$/, '.log'), result.output)
  let report: JsonReport
  try {
    report = JSON.parse(p.read(json)) as JsonReport
  } catch {
    throw new Error(`no JSON report from the run (exit ${result.code}):\n${result.output}`)
  }
  const tests = new Map<string, TestRow>()
  const byFixtureName = new Map<string, string>()
  for (const file of report.testResults) {
    const rel = relative(p.dir, file.name).split('\\').join('/')
    for (const a of file.assertionResults) {
      const key = [rel, ...a.ancestorTitles, a.title].join(' > ')
      const failure = (a.failureMessages ?? []).join('\n')
      const status: Status = a.status === 'pending' ? 'skipped' : (a.status as Status)
      tests.set(key, { status, failure, codes: [...new Set(failure.match(/\bFLUX_[A-Z_]+\b(?!=)/g) ?? [])] })
      byFixtureName.set(`${rel}\0${[...a.ancestorTitles, a.title].join(sep)}`, key)
    }
  }
  return { result, report, tests, byFixtureName }
}

/** Differences from the expected statuses, one line each (with the fluxlab codes a failure names). */
function differences(expected: Record<string, Status>, run: Run, only?: (key: string) => boolean): string[] {
  const out: string[] = []
  for (const [key, status] of Object.entries(expected)) {
    const row = run.tests.get(key)
    if (row?.status !== status) out.push(`${key}: expected ${status}, got ${row?.status ?? 'nothing'}${row?.codes.length ? ` (${row.codes.join(', ')})` : ''}`)
  }
  for (const key of run.tests.keys()) if (!(key in expected) && (!only || only(key))) out.push(`${key}: not expected, got ${run.tests.get(key)!.status}`)
  return out
}

/** The runner's own counts: passed, failed, skipped + todo. */
function runnerCounts(r: JsonReport): { passed: number; failed: number; skipped: number } {
  return { passed: r.numPassedTests, failed: r.numFailedTests, skipped: r.numPendingTests + (r.numTodoTests ?? 0) }
}

/** Every file under `dir`, relative to it. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split('\\').join('/'))
    .sort()
}

/** The suite as it was: the adopted project without its `// fluxlab` lines and the tests written for fluxlab. */
function unadopted(kit: Kit): Project {
  const p = createProject(kit.template)
  const config = p.read(kit.config)
  const kept = config.split('\n').filter((l) => !l.trimEnd().endsWith('// fluxlab'))
  p.write(kit.config, kept.join('\n'))
  rmSync(p.path('test/fluxlab'), { recursive: true })
  return p
}

const keysEnv = (names: readonly string[]) => ({ ...Object.fromEntries(names.map((n) => [n, KEYS[n]])), [GATE_KEY]: GATE_VALUE })

interface Fixture {
  dir: string
  source?: { file: string; name?: string }
  keyVars?: string[]
}

function fixtures(p: Project): Fixture[] {
  if (!p.exists('tests/scenarios')) return []
  return readdirSync(p.path('tests/scenarios'))
    .filter((d) => p.exists(`tests/scenarios/${d}/scenario.yaml`))
    .map((dir) => {
      const m = parseYaml(p.read(`tests/scenarios/${dir}/scenario.yaml`)) as { source?: { file: string; name?: string }; keyVars?: string[] }
      return { dir, source: m.source, keyVars: m.keyVars }
    })
}

describe.concurrent.each(KITS)('adopting fluxlab on a multi-provider $name suite keeps its verdict', (kit) => {
  const rows = { ...kit.suite, ...kit.explicit }
  const isExplicit = (key: string) => key.startsWith('test/fluxlab/')
  let live: ProviderEmulator
  let recording: ProviderEmulator
  let status: { url: string; hits: number; close(): Promise<void> }
  /** The weather vendor's API, stood in for by a server of the harness (outside every run's process tree). */
  let weather: { url: string; hits: number; close(): Promise<void> }
  /** Its requests once A and B are over: nothing after them may reach it. */
  let weatherHitsLive: number
  let original: Project
  let adopted: Project
  let withNewTest: Project
  let offline: Project
  let A: Run
  let B: Run
  let replay: Promise<Run>
  let replayEnv: Record<string, string>

  beforeAll(async () => {
    assertBuilt()
    linkSelf()
    ;[live, recording] = await Promise.all([startProviderEmulator(KEYS), startProviderEmulator(KEYS)])
    status = await startStatusServer()
    weather = await startStatusServer({ city: 'Paris', forecast: 'sunny', high: 24 })
    original = unadopted(kit)
    adopted = createProject(kit.template)
    const keys = { ...keysEnv(kit.keys), WEATHER_API_URL: weather.url }
    const [a, b] = await Promise.all([
      kit.run(original, 'live.json', { ...live.env(), ...keys }),
      kit.run(adopted, 'record.json', { ...recording.env(), ...keys }),
    ])
    weatherHitsLive = weather.hits
    A = readRun(original, 'live.json', a, kit.sep)
    B = readRun(adopted, 'record.json', b, kit.sep)
    await live.close()
    // From here the providers are down: the port only counts what still connects.
    await recording.stop()
    replayEnv = { ...recording.env(), CI: '1', FLUX_OFFLINE: '1', WEATHER_API_URL: weather.url }
    // Copies of the recording for the cases that change the suite, made before anything replays.
    withNewTest = createProject(kit.template)
    withNewTest.copyScenariosFrom(adopted)
    withNewTest.edit(kit.added.file, kit.added.before, `${kit.added.text}${kit.added.before}`)
    offline = createProject(kit.template)
    offline.copyScenariosFrom(adopted)
    offline.write(kit.offline.file, kit.offline.text)
    replay = kit.run(adopted, 'replay.json', replayEnv).then((r) => readRun(adopted, 'replay.json', r, kit.sep))
    replay.catch(() => {})
  }, TIMEOUT)

  afterAll(async () => {
    await Promise.all([live?.close(), recording?.close(), status?.close(), weather?.close()])
    if (!process.env.E2E_KEEP) for (const p of [original, adopted, withNewTest, offline]) p?.remove()
  })

  test('A, without fluxlab and with 2 keys: each test has the status its key gate gives it, and each provider got its own key', ({ expect }) => {
    expect(differences(kit.suite, A), A.result.output).toEqual([])
    expect(A.result.code).toBe(1) // the known-failing test
    const called = new Set(live.requests.map((r) => r.provider))
    expect([...called].sort()).toEqual(kit.keys.map((k) => Object.entries(PROVIDERS).find(([, p]) => p.keyVar === k)![0]).sort())
    expect(live.requests.filter((r) => !r.keyOk || r.status !== 200)).toEqual([])
    expect(live.requests).toHaveLength(Object.keys(kit.calls).length)
  })

  test('B, recording with the same 2 keys: every test keeps its live status, and nothing fails with FLUX_NO_KEY', ({ expect }) => {
    // What reached the providers carried each one's own key (a placeholder is never sent).
    expect(recording.requests.filter((r) => !r.keyOk || r.status !== 200)).toEqual([])
    const diff = differences(kit.suite, B, (k) => !isExplicit(k))
    expect(diff, diff.join('\n')).toEqual([])
    expect(differences(kit.explicit, B, isExplicit)).toEqual([])
    expect(B.result.output).not.toContain('FLUX_NO_KEY')
    expect(B.result.code).toBe(A.result.code)
  })

  test('B writes a fixture for each test that called a model or reached a host outside its process tree, and for nothing else, each naming the variable its key came from, and no key value', ({
    expect,
  }) => {
    for (const f of files(adopted.path('tests/scenarios'))) {
      const text = readFileSync(adopted.path(`tests/scenarios/${f}`), 'utf8')
      for (const [name, value] of Object.entries({ ...KEYS, [GATE_KEY]: GATE_VALUE })) expect(text.includes(value), `${name}'s value in ${f}`).toBe(false)
    }
    for (const [name, value] of Object.entries({ ...KEYS, [GATE_KEY]: GATE_VALUE }))
      expect(B.result.output.includes(value), `${name}'s value in the runner's output`).toBe(false)
    const written = fixtures(adopted)
    const perTest = Object.fromEntries(
      written
        .filter((f) => !(f.dir in kit.explicitFixtures))
        .map((f) => [
          !f.source
            ? `${f.dir} (no source)`
            : f.source.name === OUTSIDE
              ? `${f.source.file} > ${OUTSIDE}`
              : (B.byFixtureName.get(`${f.source.file}\0${f.source.name}`) ?? `${f.dir} (no such test)`),
          f.keyVars,
        ]),
    )
    const named = Object.fromEntries(written.filter((f) => f.dir in kit.explicitFixtures).map((f) => [f.dir, f.keyVars]))
    expect(Object.keys(perTest).sort()).toEqual([...Object.keys(kit.calls), ...kit.toolOnly].sort())
    expect(Object.keys(named).sort()).toEqual(Object.keys(kit.explicitFixtures).sort())
    // SPEC §2 Keys: the manifest names the variables whose values the recorded requests carried (none for a tool API's).
    const expected = { ...Object.fromEntries(Object.entries(kit.calls).map(([k, v]) => [k, [v]])), ...Object.fromEntries(kit.toolOnly.map((k) => [k, []])) }
    expect(perTest).toEqual(expected)
    // The explicit file gates a test on each recorded provider at collection: its fixtures also name the keys it read, set.
    expect(named).toEqual(Object.fromEntries(Object.keys(kit.explicitFixtures).map((k) => [k, [...new Set(Object.values(kit.explicitFixtures))].sort()])))
  })

  test('B keeps, beside the fixtures, the key variables a file that wrote no fixture read (names only), so C opens its gate as it was', ({ expect }) => {
    const gated = kit.name === 'vitest' ? 'test/translate.test.ts' : 'test/translate.test.cjs'
    expect(fixtures(adopted).filter((f) => f.source?.file === gated)).toEqual([])
    const record = `tests/scenarios/.files/${gated.split('/').join('__')}.yaml`
    expect(adopted.exists(record), files(adopted.path('tests/scenarios')).join('\n')).toBe(true)
    const text = adopted.read(record)
    expect(parseYaml(text)).toEqual({ file: gated, keyVars: [GATE_KEY], unsetVars: [] })
    expect(text).not.toContain(GATE_VALUE)
  })

  test(
    'C, replaying with every key unset, CI=1 and the providers down: every test keeps its live status, and nothing connects',
    async ({ expect }) => {
      const C = await replay
      expect(recording.hitsWhileDown).toBe(0)
      expect(weather.hits - weatherHitsLive, 'requests of the replay that reached the weather API').toBe(0)
      const diff = differences(kit.suite, C, (k) => !isExplicit(k))
      expect(diff, diff.join('\n')).toEqual([])
      expect(differences(kit.explicit, C, isExplicit)).toEqual([])
      expect(C.result.code).toBe(A.result.code)
    },
    TIMEOUT,
  )

  test(
    "the run summary's counts are the runner's own: recorded is the fixtures written, replayed the fixtures served",
    async ({ expect }) => {
      const C = await replay
      const written = fixtures(adopted).length
      const rec = parseRunSummary(B.result.output)
      expect(rec, B.result.output).toBeDefined()
      expect({ recorded: rec!.recorded, tests: rec!.tests }, rec!.line).toEqual({ recorded: written, tests: { ...runnerCounts(B.report), refusals: {} } })
      const rep = parseRunSummary(C.result.output)
      expect(rep, C.result.output).toBeDefined()
      expect({ replayed: rep!.replayed, recorded: rep!.recorded, live: rep!.liveModelCalls, tests: rep!.tests }, rep!.line).toEqual({
        replayed: written,
        recorded: 0,
        live: 0,
        tests: { ...runnerCounts(C.report), refusals: {} },
      })
    },
    TIMEOUT,
  )

  // @note measured: Gemini's `?key=` is part of the request URL, and the replay placeholder redacts to another
  // `[REDACTED:…]` than the recorded key, so every such request drifted (with an empty explanation).
  test(
    'replaying the unchanged suite drifts nowhere, a key sent in the query string included',
    async ({ expect }) => {
      const C = await replay
      const rep = parseRunSummary(C.result.output)
      expect(rep?.driftWarnings, rep?.line ?? C.result.output).toBe(0)
    },
    TIMEOUT,
  )

  test("no fixture holds a port of the test's own servers: only the providers' and the tool API's, which are outside the tree", ({ expect }) => {
    const outside = new Set([new URL(Object.values(recording.env())[0]).port, new URL(weather.url).port])
    const ports = new Set<string>()
    for (const f of files(adopted.path('tests/scenarios'))) {
      const text = readFileSync(adopted.path(`tests/scenarios/${f}`), 'utf8')
      for (const m of text.matchAll(/(?:localhost|127\.0\.0\.1|\[::1\]):(\d+)/g)) ports.add(`${m[1]} (${f})`)
    }
    expect([...ports].filter((p) => !outside.has(p.split(' ')[0]))).toEqual([])
    // the tool API's request is on the tape, with the harness's port
    expect([...ports].some((p) => p.startsWith(`${new URL(weather.url).port} `))).toBe(true)
  })

  test(
    'under CI a new key-gated test for a recorded provider, with no fixture, fails with FLUX_NO_RECORDING and the command that records it; every other test keeps its status',
    async ({ expect }) => {
      const r = await kit.run(withNewTest, 'replay.json', replayEnv)
      const run = readRun(withNewTest, 'replay.json', r, kit.sep)
      const diff = differences({ ...rows, [kit.added.row]: 'failed' }, run)
      expect(diff, diff.join('\n')).toEqual([])
      const added = run.tests.get(kit.added.row)!
      expect(added.codes).toEqual(['FLUX_NO_RECORDING'])
      expect(r.output).toContain(kit.added.command)
      const summary = parseRunSummary(r.output)
      expect(summary?.tests, summary?.line ?? r.output).toEqual({ ...runnerCounts(run.report), refusals: { FLUX_NO_RECORDING: 1 } })
      expect(recording.hitsWhileDown).toBe(0)
    },
    TIMEOUT,
  )

  test(
    'FLUX_OFFLINE=1: a test with no fixture is refused its plain HTTP requests (FLUX_OFFLINE), and 0 reach the network',
    async ({ expect }) => {
      const r = await kit.run(offline, 'offline.json', { ...recording.env(), FLUX_OFFLINE: '1', STATUS_URL: status.url, WEATHER_API_URL: weather.url })
      const run = readRun(offline, 'offline.json', r, kit.sep)
      const diff = differences({ ...rows, ...Object.fromEntries(kit.offline.rows.map((k) => [k, 'failed' as const])) }, run)
      expect(diff, diff.join('\n')).toEqual([])
      for (const row of kit.offline.rows) expect(run.tests.get(row)!.codes, run.tests.get(row)!.failure).toEqual(['FLUX_OFFLINE'])
      // a test with no fixture replays nothing: the summary counts the fixtures served, and the refused tests as failed
      const summary = parseRunSummary(r.output)
      expect(summary, r.output).toBeDefined()
      expect({ replayed: summary!.replayed, recorded: summary!.recorded }, summary!.line).toEqual({ replayed: fixtures(adopted).length, recorded: 0 })
      expect(status.hits).toBe(0)
      expect(recording.hitsWhileDown).toBe(0)
    },
    TIMEOUT,
  )
})

describe.each(KITS)('the $name suite is a multi-provider suite nobody wrote for fluxlab, adopted by config lines', (kit) => {
  const root = join(REPO, 'test/e2e/projects', kit.template)

  test('the adopted suite is the original plus lines marked `// fluxlab` in its runner config and the tests written for fluxlab', () => {
    const config = readFileSync(join(root, kit.config), 'utf8').split('\n')
    const marked = config.filter((l) => l.trimEnd().endsWith('// fluxlab'))
    expect(marked.length).toBeGreaterThan(0)
    expect(marked.length).toBeLessThanOrEqual(3)
    expect(config.filter((l) => !marked.includes(l)).join('\n')).not.toMatch(/fluxlab/)
    const suite = files(root).filter((f) => f !== kit.config && f !== 'README.md' && !f.startsWith('test/fluxlab/'))
    for (const f of suite) expect(readFileSync(join(root, f), 'utf8'), f).not.toMatch(/fluxlab/)
    expect(
      files(root)
        .filter((f) => f.startsWith('test/fluxlab/'))
        .map((f) => readFileSync(join(root, f), 'utf8'))
        .join('\n'),
    ).toMatch(/scenario\(/)
  })

  test('it has what the issue asks: 8 providers each gated on its own key, two custom names, clients built at import, retry, no-model tests', () => {
    const text = files(root)
      .filter((f) => f.startsWith('test/') && !f.startsWith('test/fluxlab/'))
      .map((f) => readFileSync(join(root, f), 'utf8'))
      .join('\n')
    for (const p of Object.values(PROVIDERS)) expect(text, p.keyVar).toContain(`process.env.${p.keyVar}`)
    if (kit.name === 'vitest') expect(text).toMatch(/skipIf\(!process\.env\./)
    expect(text).toMatch(/const hasKey = /)
    expect(text).toMatch(/\? describe : describe\.skip\)/)
    expect(text).toMatch(/retry: 3|retryTimes\(3\)/)
    expect(text).toMatch(/without any model call/)
    const app = files(root)
      .filter((f) => f.startsWith('src/'))
      .map((f) => readFileSync(join(root, f), 'utf8'))
      .join('\n')
    expect(app).toMatch(/^(export )?const client = new OpenAI\(/m)
    expect(Object.keys(kit.suite).length + Object.keys(kit.explicit).length).toBeGreaterThanOrEqual(15)
  })
})

/** A plain HTTP service on 127.0.0.1 that counts its requests and answers each with `body`. */
async function startStatusServer(body: unknown = { ok: true }): Promise<{ url: string; hits: number; close(): Promise<void> }> {
  let hits = 0
  const server = createServer((_req, res) => {
    hits++
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get hits() {
      return hits
    },
    close: () => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve())),
  }
}
