import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pc from 'picocolors'
import { afterEach, describe, expect, it } from 'vitest'
import type { SessionFacts, TestFacts } from './facts.js'
import { sessionFacts } from './test-facts.js'
import { formatSummary } from './summary-format.js'
import { summarize, type RanTest } from './summary.js'

const EXAMPLE = new URL('../../examples/scenarios/capital-agent', import.meta.url).pathname
const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))

/** A project root with fixtures whose source test is `a.test.ts > <name>`. */
function project(fixtures: Record<string, string | null>): string {
  const root = mkdtempSync(join(tmpdir(), 'flux-summary-'))
  dirs.push(root)
  for (const [dir, test] of Object.entries(fixtures)) {
    const to = join(root, 'tests/scenarios', dir)
    mkdirSync(join(to, '..'), { recursive: true })
    cpSync(EXAMPLE, to, { recursive: true })
    const manifest = readFileSync(join(to, 'scenario.yaml'), 'utf8').replace(
      /^source:\n( {2}.*\n)+/m,
      test === null ? '' : `source:\n  file: a.test.ts\n  name: ${test}\n`,
    )
    writeFileSync(join(to, 'scenario.yaml'), manifest)
  }
  return root
}

const run = sessionFacts
const facts = (root: string, opened: string[], sessions: SessionFacts[]): TestFacts => ({
  runner: 'vitest',
  file: join(root, 'a.test.ts'),
  test: 't',
  rootDir: root,
  base: join(root, 'tests/scenarios'),
  opened: opened.map((d) => join(root, 'tests/scenarios', d)),
  sessions,
})

describe('summarize', () => {
  it('names test files the runner could not run, one line per error, instead of "no scenarios ran"', () => {
    const root = project({})
    const babel = '[BABEL] /p/node_modules/@open-draft/deferred-promise/build/index.js: Requires Babel "^7.0.0-0", but was loaded with "8.0.1".'
    const fileErrors = [
      { file: join(root, 'test/a.test.js'), message: `${babel}\n    at …` },
      { file: join(root, 'test/b.test.js'), message: babel },
      { file: join(root, 'test/c.test.js'), message: "Cannot find module './missing'" },
      { file: join(root, 'test/d.test.js'), message: '[fluxlab] FLUX_OFFLINE: Failed to send GET https://x.test/' },
    ]
    const s = summarize({ tests: [], files: [], fileErrors, rootDir: root, bases: [], checkObsolete: false })
    expect(s.unloaded.map((u) => u.message)).toEqual([babel, babel, "Cannot find module './missing'"])
    const text = formatSummary(s, pc.createColors(false), { cwd: root })
    expect(text).not.toContain('no scenarios ran')
    expect(text).toContain('test files that did not run 3')
    expect(text).toContain(`✗ test/a.test.js and 1 more did not run: ${babel}`)
    expect(text).toContain("✗ test/c.test.js did not run: Cannot find module './missing'")
    expect(text).toContain('✗ test/d.test.js, outside its tests: [fluxlab] FLUX_OFFLINE')
  })

  it('counts runs by mode, hermetic ones, live calls, cost, and drift', () => {
    const root = project({})
    const tests: RanTest[] = [
      {
        file: join(root, 'a.test.ts'),
        name: 'one',
        state: 'passed',
        facts: facts(root, [], [run(), run({ mode: 'record', written: true, hermetic: false, modelLive: 2, cost: 0.002 })]),
      },
      {
        file: join(root, 'a.test.ts'),
        name: 'two',
        state: 'failed',
        facts: facts(root, [], [run({ hermetic: false, warnings: [{ code: 'model_request_drift', step: 'model#1', message: 'm' }], unpriced: ['x'] })]),
      },
    ]
    const s = summarize({ tests, files: [], rootDir: root, bases: [], checkObsolete: true })
    expect(s).toMatchObject({
      scenarios: 3,
      replayed: 2,
      recorded: 1,
      tests: { passed: 1, failed: 1, skipped: 0 },
      hermetic: 1,
      liveModelCalls: 2,
      unpriced: ['x'],
      obsolete: [],
    })
    expect(s.cost).toBeCloseTo(0.004)
    expect(formatSummary(s, pc.createColors(false))).toBe(
      ' fluxlab  3 scenarios: 2 replayed, 1 recorded · tests 1 passed, 1 failed, 0 skipped · hermetic 1/2 · live model calls 2 · recorded cost $0.00400 + no price for x · drift warnings 1\n' +
        '          ⚠ capital model#1 model_request_drift: m\n' +
        '            a prompt part that changes every run (a date, a temp path, an id) drifts on every replay: key it with a `normalize` rule (built-ins for dates, uuids, temp paths, model date suffixes, or a pattern), or leave its field out of the key with `ignore` (docs/matching-and-divergence.md)',
    )
  })

  it('counts a refusal (no fixture where recording is off) as no scenario: a test with no model call, or a failed test', () => {
    const root = project({})
    const refusal = (over: Partial<SessionFacts> = {}) => run({ refused: true, modelCalls: 0, toolCalls: 0, cost: 0, ...over })
    const tests: RanTest[] = [
      { file: join(root, 'a.test.ts'), name: 'replays', state: 'passed', facts: facts(root, [], [run()]) },
      { file: join(root, 'a.test.ts'), name: 'asks nothing', state: 'passed', facts: facts(root, [], [refusal()]) },
      {
        file: join(root, 'a.test.ts'),
        name: 'asks',
        state: 'failed',
        errors: ['[fluxlab] FLUX_OFFLINE: Failed to record scenario "x": FLUX_OFFLINE=1 forbids live requests.'],
        facts: facts(root, [], [refusal({ hermetic: false, failures: [{ code: 'fatal', step: 'x', message: 'FLUX_OFFLINE' }] })]),
      },
    ]
    const s = summarize({ tests, files: [], rootDir: root, bases: [], checkObsolete: false })
    expect(s).toMatchObject({
      scenarios: 1,
      replayed: 1,
      recorded: 0,
      empty: 1,
      hermetic: 1,
      tests: { passed: 2, failed: 1, skipped: 0 },
      fluxFailures: { FLUX_OFFLINE: 1 },
    })
    expect(formatSummary(s, pc.createColors(false))).toContain(
      '1 scenario: 1 replayed, 0 recorded (1 test with no model call: nothing to record) · tests 2 passed, 1 failed (1 FLUX_OFFLINE), 0 skipped · hermetic 1/1',
    )
  })

  it('names the child processes that never reached fluxlab, each once with its scenario, and the fix once', () => {
    const root = project({})
    const unseen = (command: string) => ({
      code: 'unseen_child',
      step: 'child',
      message: `the child process \`${command}\` exited without reaching fluxlab: …`,
    })
    const tests: RanTest[] = [
      {
        file: join(root, 'a.test.ts'),
        name: 'one',
        state: 'passed',
        facts: facts(root, [], [run({ name: 'a/one', warnings: [unseen('NODE_OPTIONS= node tool.mjs')] })]),
      },
      {
        file: join(root, 'a.test.ts'),
        name: 'two',
        state: 'passed',
        facts: facts(root, [], [run({ name: 'a/two', warnings: [unseen('python3 tool.py'), { code: 'model_request_drift', step: 'model#1', message: 'm' }] })]),
      },
    ]
    const s = summarize({ tests, files: [], rootDir: root, bases: [], checkObsolete: true })
    expect(s.unseen.map((u) => u.scenario)).toEqual(['a/one', 'a/two'])
    const out = formatSummary(s, pc.createColors(false)).split('\n')
    expect(out[0]).toMatch(/ · drift warnings 1 · unseen child processes 2$/)
    expect(out.slice(-4)).toEqual([
      '          ⚠ 2 child processes of a run never reached fluxlab (no preload loaded, nothing through a base-URL variable), so what they sent went out unseen and is on no tape:',
      '            `NODE_OPTIONS= node tool.mjs` in a/one',
      '            `python3 tool.py` in a/two',
      '            keep NODE_OPTIONS in their environment (add to it, do not replace it), or set `childBaseUrls: true` (FLUX_CHILD_BASE_URLS=1) for a program that reads OPENAI_BASE_URL and the like (docs/process-tree.md)',
    ])
  })

  it('counts the calls a recording stored as never answered, and names each with its scenario', () => {
    const root = project({})
    const unanswered = {
      code: 'unanswered_call',
      step: 'tool#8 mcp mark_item',
      message: 'tool#8 never got an answer (the client cancelled it (notifications/cancelled) after 200 ms); the replay waits as the client did',
    }
    const tests: RanTest[] = [
      {
        file: join(root, 'a.test.ts'),
        name: 'one',
        state: 'passed',
        facts: facts(root, [], [run({ name: 'a/one', mode: 'record', written: true, warnings: [unanswered] })]),
      },
    ]
    const s = summarize({ tests, files: [], rootDir: root, bases: [], checkObsolete: false })
    expect(s.unanswered.map((u) => u.scenario)).toEqual(['a/one'])
    const out = formatSummary(s, pc.createColors(false)).split('\n')
    expect(out[0]).toMatch(/ · drift warnings 0 · calls never answered 1$/)
    expect(out.at(-1)).toMatch(
      /⚠ a\/one tool#8 mcp mark_item unanswered_call: tool#8 never got an answer \(the client cancelled it .*\); the replay waits as the client did$/,
    )
  })

  it('names the unpriced models once, in one clause: each once, sorted, the first three and a count of the rest', () => {
    // Measured on a real suite: the cost line named 10 unpriced models, on the summary's one head line.
    const root = project({})
    const models = (ids: number[]) => ids.map((i) => `gateway/model-${String(i).padStart(2, '0')}`)
    const tests: RanTest[] = [
      [10, 3, 1, 7],
      [2, 9, 3],
      [8, 4, 5, 6, 1],
    ].map((ids, i) => ({
      file: join(root, 'a.test.ts'),
      name: `t${i}`,
      state: 'passed',
      facts: facts(root, [], [run({ unpriced: models(ids) }), run({ unpriced: models([1]) })]),
    }))
    const s = summarize({ tests, files: [], rootDir: root, bases: [], checkObsolete: true })
    expect(s.unpriced).toEqual(models([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]))
    const head = formatSummary(s, pc.createColors(false)).split('\n')[0]
    expect(head.match(/no price for/g)).toHaveLength(1)
    expect(head).toContain(' · recorded cost $0.00600 + no price for gateway/model-01, gateway/model-02, gateway/model-03 (+7 more) · drift warnings 0')
    // four are all named (a count would take as much room), and a list handed in unsorted and twice is said once
    const line = (unpriced: string[]) => formatSummary({ ...s, unpriced }, pc.createColors(false)).split('\n')[0]
    expect(line(['d', 'b', 'c', 'a', 'b'])).toContain(' + no price for a, b, c, d · ')
    expect(line(['e', 'd', 'b', 'c', 'a'])).toContain(' + no price for a, b, c (+2 more) · ')
  })

  it('counts as recorded only the fixtures written, and says how many tests had no model call to record', () => {
    // Measured on real suites: "137 scenarios: 0 replayed, 137 recorded" while 20 of them wrote nothing, and
    // "recorded" for 136 tests that wrote nothing because they failed.
    const root = project({})
    const tests: RanTest[] = [
      { file: join(root, 'a.test.ts'), name: 'calls', state: 'passed', facts: facts(root, [], [run({ mode: 'record', written: true })]) },
      { file: join(root, 'a.test.ts'), name: 'adds', state: 'passed', facts: facts(root, [], [run({ mode: 'record', modelCalls: 0, toolCalls: 0, cost: 0 })]) },
      {
        file: join(root, 'a.test.ts'),
        name: 'fails',
        state: 'failed',
        errors: ['AssertionError: expected 1 to be 2'],
        facts: facts(root, [], [run({ mode: 'record' })]),
      },
    ]
    const s = summarize({ tests, files: [], rootDir: root, bases: [], checkObsolete: false })
    expect(s).toMatchObject({ scenarios: 1, recorded: 1, empty: 1, tests: { passed: 2, failed: 1, skipped: 0 }, fluxFailures: {} })
    // The recorded cost is that of what is on the tape: the failed test's recording wrote nothing.
    expect(s.cost).toBeCloseTo(0.001)
    expect(formatSummary(s, pc.createColors(false)).split('\n')[0]).toContain(
      ' fluxlab  1 scenario: 0 replayed, 1 recorded (1 test with no model call: nothing to record) · tests 2 passed, 1 failed, 0 skipped · ',
    )
    // A file scenario (calls outside every test, such as servers started in beforeAll) that recorded nothing is no test:
    // measured on a real suite, "4 tests with no model call" where 3 tests had none.
    const outside = facts(root, [], [run({ mode: 'record', modelCalls: 0, toolCalls: 2, cost: 0 })])
    const withFile = summarize({
      tests,
      fileFacts: [{ file: join(root, 'a.test.ts'), base: join(root, 'tests/scenarios'), unsetKeys: [], outside }],
      files: [],
      rootDir: root,
      bases: [],
      checkObsolete: false,
    })
    expect(withFile.empty).toBe(1)
  })

  it("counts a file's own scenario (its calls outside every test) as a scenario, and as no test", () => {
    // Measured on a real suite: "recorded 55" while 56 fixtures were written, the 56th a file's `beforeAll` calls.
    const root = project({ 'a-outside-tests': '(outside tests)' })
    const file = join(root, 'a.test.ts')
    const outside = {
      ...facts(root, ['a-outside-tests'], [run({ mode: 'record', written: true, hermetic: false, modelLive: 6 })]),
      test: '(outside tests)',
      fileLevel: true as const,
    }
    const tests: RanTest[] = [
      { file, name: 'calls', state: 'passed', facts: facts(root, [], [run({ mode: 'record', written: true, hermetic: false, modelLive: 1 })]) },
    ]
    const s = summarize({
      tests,
      fileFacts: [{ file, base: join(root, 'tests/scenarios'), unsetKeys: [], outside }],
      files: [file],
      rootDir: root,
      bases: [],
      checkObsolete: true,
    })
    expect(s).toMatchObject({ scenarios: 2, recorded: 2, liveModelCalls: 7, tests: { passed: 1, failed: 0, skipped: 0 }, obsolete: [] })
  })

  it("counts the runner's failed tests, with fluxlab's own failures apart by code", () => {
    // Measured on a real suite: under vitest's "115 failed", the summary said "56 replayed, 0 failed"; 114 were FLUX_NO_RECORDING.
    const root = project({})
    const file = join(root, 'a.test.ts')
    const refused = (name: string): RanTest => ({
      file,
      name,
      state: 'failed',
      errors: ['[fluxlab] FLUX_NO_RECORDING: Failed to open scenario "x": there is no fixture.'],
    })
    const tests: RanTest[] = [
      refused('a'),
      refused('b'),
      { file, name: 'c', state: 'failed', errors: ['FluxError: [fluxlab] FLUX_DIVERGED: Failed to replay scenario "c": the run left the tape.\n    at …'] },
      { file, name: 'd', state: 'failed', errors: ['AssertionError: expected "Paris" to be "Rome"'] },
      { file, name: 'e', state: 'passed', facts: facts(root, [], [run()]) },
      { file, name: 'f', state: 'skipped' },
    ]
    const s = summarize({ tests, files: [], rootDir: root, bases: [], checkObsolete: false })
    expect(s.tests).toEqual({ passed: 1, failed: 4, skipped: 1 })
    expect(s.fluxFailures).toEqual({ FLUX_NO_RECORDING: 2, FLUX_DIVERGED: 1 })
    expect(formatSummary(s, pc.createColors(false)).split('\n')[0]).toContain(
      ' · tests 1 passed, 4 failed (2 FLUX_NO_RECORDING, 1 FLUX_DIVERGED), 1 skipped · ',
    )
    // A run where fluxlab refused every test still prints its summary.
    expect(formatSummary(summarize({ tests: [refused('a')], files: [], rootDir: root, bases: [], checkObsolete: false }), pc.createColors(false))).toContain(
      'tests 0 passed, 1 failed (1 FLUX_NO_RECORDING), 0 skipped',
    )
  })

  it('folds drift at one place across tests into one line with its count, showing what changed', () => {
    // Measured on a real suite: a system prompt carrying the time drifted in 72 requests of 36 tests, and each
    // summary line was cut before the difference.
    const root = project({})
    const served = 'request differs from the recording, served by position: '
    const at = (t: string) =>
      `${served}input[0].content[0].text differs at character 2955: "…TIME: Tuesday, December 1, 2026 at 3:24:03 PM UTC" → "…TIME: Tuesday, December 1, 2026 at ${t} PM UTC"`
    const tests: RanTest[] = ['3:25:10', '3:25:11', '3:25:12'].map((t, i) => ({
      file: join(root, 'a.test.ts'),
      name: `t${i}`,
      state: 'passed' as const,
      facts: facts(root, [], [run({ warnings: [{ code: 'model_request_drift', step: 'model#1', message: at(t) }] })]),
    }))
    const text = formatSummary(summarize({ tests, files: [], rootDir: root, bases: [], checkObsolete: false }), pc.createColors(false))
    expect(text.split('\n')[1]).toBe(
      '          ⚠ 3× model_request_drift in 1 scenario, first capital model#1: input[0].content[0].text differs at character 2955: "…TIME: Tuesday, December 1, 2026 at 3:24:03 PM UTC" → "…TIME: Tuesday, December 1, 2026 at 3:25:10 PM UTC"',
    )
    expect(text.split('\n')).toHaveLength(3)
  })

  it('names the tests that failed while recording after making model calls: nothing of them was written', () => {
    // Found in the field corpus (deepagents-template): 3 of 4 tests failed while recording, the line said "1 recorded".
    const root = project({})
    const test = (name: string, state: 'passed' | 'failed', modelCalls: number, written = false): RanTest => ({
      file: join(root, 'a.test.ts'),
      name,
      state,
      facts: facts(root, [], [run({ name: name.replace(/\W+/g, '-'), mode: 'record', written, hermetic: false, modelLive: modelCalls, modelCalls })]),
    })
    const tests = [test('agent > answers', 'passed', 2, true), test('agent > uses the clock', 'failed', 3), test('agent > fails before a call', 'failed', 0)]
    const s = summarize({ tests, files: [], rootDir: root, bases: [], checkObsolete: false })
    expect(s.notWritten).toEqual([{ test: 'agent > uses the clock', scenario: 'agent-uses-the-clock' }])
    expect(formatSummary(s, pc.createColors(false)).split('\n').slice(1)).toEqual([
      '          ⚠ 1 test failed while recording, so its model calls were not written (a failing test writes no fixture); ' +
        'under CI each fails with FLUX_NO_RECORDING until it passes while recording:',
      '            agent > uses the clock',
    ])
  })

  it('keeps the normalize rule a long drift line ends with whole, and cuts the difference before it instead', () => {
    // Found in the field corpus (deepagents-template): a tool result holding the time, the line cut at `normalize: ['is…`.
    const root = project({})
    const long = `"${'2026-12-07T04:01:02.345Z '.repeat(8)}"`
    const hint = "; the normalize rule 'iso-dates' would absorb this difference: fluxlab({ normalize: ['iso-dates'] })"
    const message = `request differs from the recording, served by position: messages[2].content[0].content differs: ${long} → ${long}${hint}`
    const tests: RanTest[] = [
      {
        file: join(root, 'a.test.ts'),
        name: 't',
        state: 'passed',
        facts: facts(root, [], [run({ warnings: [{ code: 'model_request_drift', step: 'model#2', message }] })]),
      },
    ]
    const line = formatSummary(summarize({ tests, files: [], rootDir: root, bases: [], checkObsolete: false }), pc.createColors(false)).split('\n')[1]
    expect(line).toMatch(
      /^ {10}⚠ capital model#2 model_request_drift: messages\[2\]\.content\[0\]\.content differs: "2026-12-07T04:01:02\.345Z .*…; the normalize/,
    )
    expect(line.endsWith(hint)).toBe(true)
    expect(line.length).toBeLessThanOrEqual('          ⚠ capital model#2 model_request_drift: '.length + 200)
  })

  it('folds unwrapped_tool warnings of one tool across tests into one line, and shows its advice whole', () => {
    const root = project({})
    const advice = `. Without editing a test: in a setup file of your config (vitest setupFiles, jest setupFilesAfterEnv), mock the module that exports it, or the factory that builds it (your own, or a library's such as LangChain's \`tool\`), with its tools passed through tools() from 'fluxlab', or the MCP SDK's StdioClientTransport with each transport passed through mcp() from 'fluxlab' (docs/tools.md#unwrapped-tools); or wrap it with tools({ get_weather }) or tool('get_weather', fn) from 'fluxlab' where the tools are built`
    const said = (id: string) =>
      `model#1 asked for \`get_weather\` (${id}); model#2 sent its result back, and no tool call on the tape answered it, so the tool ran unrecorded (in this process, or in a server it reaches outside HTTP: an MCP server over stdio)${advice}`
    const tests: RanTest[] = ['call_a0000001', 'call_b0000002', 'call_c0000003'].map((id, i) => ({
      file: join(root, 'a.test.ts'),
      name: `t${i}`,
      state: 'passed' as const,
      facts: facts(root, [], [run({ name: `weather-${i}`, warnings: [{ code: 'unwrapped_tool', step: 'model#1', message: said(id) }] })]),
    }))
    const text = formatSummary(summarize({ tests, files: [], rootDir: root, bases: [], checkObsolete: false }), pc.createColors(false))
    expect(text.split('\n')[0]).toMatch(/ · unwrapped tools run 3$/)
    expect(text.split('\n').slice(1)).toEqual([`          ⚠ 3× unwrapped_tool in 3 scenarios, first weather-0 model#1: ${said('call_a0000001')}`])
  })

  it('lists a fixture as unopened only when its source test file ran and its test is gone or passed without opening it', () => {
    const root = project({ opened: 'kept', renamed: 'gone', skipped: 'skipped one', failed: 'failed one', passedUnopened: 'passed one', cli: null })
    const file = join(root, 'a.test.ts')
    const tests: RanTest[] = [
      { file, name: 'kept', state: 'passed', facts: facts(root, ['opened'], [run()]) },
      { file, name: 'skipped one', state: 'skipped' },
      { file, name: 'failed one', state: 'failed' },
      { file, name: 'passed one', state: 'passed' },
    ]
    const s = summarize({ tests, files: [file], rootDir: root, bases: [], checkObsolete: true })
    expect(s.obsolete.map((d) => d.slice(root.length + 1))).toEqual(['tests/scenarios/passedUnopened', 'tests/scenarios/renamed'])
    expect(formatSummary(s, pc.createColors(false), { cwd: root })).toContain('remove them with: rm -r tests/scenarios/passedUnopened tests/scenarios/renamed')
    expect(summarize({ tests, files: [], rootDir: root, bases: [], checkObsolete: true }).obsolete).toEqual([])
    expect(summarize({ tests, files: [file], rootDir: root, bases: [], checkObsolete: false }).obsolete).toEqual([])
  })

  it('counts skipped tests and warns about a skipped test that has a fixture, naming the unset variables its file read', () => {
    const root = project({ gated: 'needs a key' })
    const file = join(root, 'a.test.ts')
    const tests: RanTest[] = [
      { file, name: 'needs a key', state: 'skipped' },
      { file, name: 'todo', state: 'pending' },
      { file, name: 'kept', state: 'passed', facts: facts(root, [], [run()]) },
    ]
    const s = summarize({
      tests,
      fileFacts: [{ file, base: join(root, 'tests/scenarios'), unsetKeys: ['FIREWORKS_API_KEY'] }],
      files: [file],
      rootDir: root,
      bases: [],
      checkObsolete: true,
    })
    expect(s.tests.skipped).toBe(2)
    expect(s.skippedWithFixture.map((t) => [t.test, t.dir.slice(root.length + 1), t.unsetKeys])).toEqual([
      ['a.test.ts > needs a key', 'tests/scenarios/gated', ['FIREWORKS_API_KEY']],
    ])
    expect(formatSummary(s, pc.createColors(false), { cwd: root })).toBe(
      ' fluxlab  1 scenario: 1 replayed, 0 recorded · tests 1 passed, 0 failed, 2 skipped · hermetic 1/1 · live model calls 0 · recorded cost $0.00100 · drift warnings 0\n' +
        '          ⚠ 1 skipped test has a fixture: it ran while recording, so a skip gate closed here and the fixture tests nothing:\n' +
        '            a.test.ts > needs a key (its file read FIREWORKS_API_KEY unset)\n' +
        "            fluxlab fills the key variables a fixture's requests carried; a gate on one that never reaches the wire opens with the `keys` option: keys: ['FIREWORKS_API_KEY'] (or FLUX_KEYS=FIREWORKS_API_KEY)",
    )
    // Without a report of the file's reads, the advice says how to find the variable.
    const bare = formatSummary(summarize({ tests, files: [file], rootDir: root, bases: [], checkObsolete: true }), pc.createColors(false), { cwd: root })
    expect(bare).toContain('a gate on another variable (a flag, or a key that never reaches the wire) opens with the `keys` option (or FLUX_KEYS), naming it')
  })

  it('tells tests of one file that share a name apart by order, and names the shared name once', () => {
    const root = project({ first: 'raw response', second: 'raw response' })
    const second = join(root, 'tests/scenarios/second/scenario.yaml')
    writeFileSync(second, readFileSync(second, 'utf8').replace('  name: raw response\n', '  name: raw response\n  nth: 2\n'))
    const file = join(root, 'a.test.ts')
    const tests: RanTest[] = [
      { file, name: 'raw response', state: 'skipped' },
      { file, name: 'raw response', state: 'passed', facts: facts(root, ['second'], [run()]) },
      { file, name: 'other', state: 'passed' },
    ]
    const s = summarize({ tests, files: [file], rootDir: root, bases: [], checkObsolete: true })
    // The first's fixture is the skipped one's: not obsolete for the passing second, which opened its own.
    expect(s.skippedWithFixture.map((t) => t.dir.slice(root.length + 1))).toEqual(['tests/scenarios/first'])
    expect(s.obsolete).toEqual([])
    expect(s.duplicates).toEqual([{ file, name: 'raw response', count: 2 }])
    const text = formatSummary(s, pc.createColors(false), { cwd: root })
    expect(text.match(/are named/g)).toHaveLength(1)
    expect(text).toContain('· 2 tests of a.test.ts are named "raw response": each has its own scenario, told apart by order of declaration')
  })

  it('counts a test file that a refusal outside every test failed, by code, and names its message; never "no scenarios ran"', () => {
    const root = project({})
    const file = join(root, 'config.test.ts')
    const message = '[fluxlab] FLUX_OFFLINE: Failed to send GET 127.0.0.1:4010/config in test "(outside tests)": no fixture answers it.'
    const outside: TestFacts = {
      ...facts(
        root,
        [],
        [run({ refused: true, modelCalls: 0, toolCalls: 1, cost: 0, hermetic: false, failures: [{ code: 'fatal', step: '(outside tests)', message }] })],
      ),
      file,
      test: '(outside tests)',
      fileLevel: true,
    }
    const tests: RanTest[] = [{ file, name: 'uses the configured model', state: 'skipped' }]
    const s = summarize({
      tests,
      fileFacts: [{ file, base: join(root, 'tests/scenarios'), unsetKeys: [], outside }],
      files: [],
      rootDir: root,
      bases: [],
      checkObsolete: true,
    })
    expect(s.fileFailures).toEqual([{ file, code: 'FLUX_OFFLINE', message }])
    expect(formatSummary(s, pc.createColors(false), { cwd: root })).toBe(
      ' fluxlab  0 scenarios: 0 replayed, 0 recorded · tests 0 passed, 0 failed, 1 skipped · test files failed outside their tests 1 (1 FLUX_OFFLINE) · hermetic 0/0 · live model calls 0 · recorded cost $0 · drift warnings 0\n' +
        `          ✗ config.test.ts, outside its tests: ${message}`,
    )
  })

  it('says so in one line when no scenario and no test ran', () => {
    const root = project({})
    expect(formatSummary(summarize({ tests: [], files: [], rootDir: root, bases: [], checkObsolete: true }), pc.createColors(false))).toBe(
      ' fluxlab  no scenarios ran',
    )
  })

  it("gives the runner's counts when tests ran but none opened a scenario, and no namesake line: none has a fixture to tell apart", () => {
    const root = project({})
    const file = join(root, 'parity.test.ts')
    const tests: RanTest[] = [
      { file, name: 'parity complete() returns text', state: 'failed' },
      { file, name: 'parity complete() returns text', state: 'failed' },
      { file, name: 'parity stream() yields text', state: 'passed' },
      { file, name: 'parity is skipped', state: 'skipped' },
    ]
    const text = formatSummary(summarize({ tests, files: [file], rootDir: root, bases: [], checkObsolete: true }), pc.createColors(false), { cwd: root })
    expect(text.split('\n')[0]).toBe(
      ' fluxlab  0 scenarios: 0 replayed, 0 recorded · tests 1 passed, 2 failed, 1 skipped · hermetic 0/0 · live model calls 0 · recorded cost $0 · drift warnings 0',
    )
    expect(text).not.toContain('are named')
  })
})
