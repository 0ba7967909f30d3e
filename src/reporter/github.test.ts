import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import type { SessionFacts, TestFacts } from './facts.js'
import { sessionFacts } from './test-facts.js'
import { annotation, declarationLine, escapeData, escapeProperty, githubAnnotations, githubOn, placeable, reportToGithub, stepSummary } from './github.js'
import { summarize, type RanTest } from './summary.js'

const ROOT = '/repo'
const run = sessionFacts
const facts = (test: string, sessions: SessionFacts[]): TestFacts => ({
  runner: 'vitest',
  file: `${ROOT}/test/a.test.ts`,
  test,
  rootDir: ROOT,
  base: `${ROOT}/tests/scenarios`,
  opened: [],
  sessions,
})
const ran = (name: string, state: RanTest['state'], sessions: SessionFacts[], over: Partial<RanTest> = {}): RanTest => ({
  file: `${ROOT}/test/a.test.ts`,
  name,
  line: 12,
  state,
  facts: facts(name, sessions),
  ...over,
})
const input = (tests: RanTest[], runnerAnnotates: boolean | ((t: RanTest) => boolean) = false) => ({
  runner: 'vitest',
  tests,
  runnerAnnotates,
  cwd: ROOT,
  summary: summarize({ tests, files: [], rootDir: ROOT, bases: [], checkObsolete: false }),
})
const overflow = { code: 'model_index_overflow', step: 'model#3', message: 'the run made model call #3, the tape has 2' }
const drift = { code: 'model_request_drift', step: 'model#1', message: 'request differs from the recording, served by position: messages[0].content differs' }

describe('escaping', () => {
  it("escapes a message's %, CR and LF, and a property's : and , besides", () => {
    expect(escapeData('100% done\r\nnext: a, b')).toBe('100%25 done%0D%0Anext: a, b')
    expect(escapeProperty('C:\\a,b%\n')).toBe('C%3A\\a%2Cb%25%0A')
    expect(annotation('error', { file: 'test/a,b.test.ts', line: 3, title: 'x: y' }, 'one\ntwo')).toBe(
      '::error file=test/a%2Cb.test.ts,line=3,title=x%3A y::one%0Atwo',
    )
    expect(annotation('warning', {}, 'bare')).toBe('::warning::bare')
  })

  it('redacts a secret in the message and in the properties', () => {
    const key = `sk-proj-${'Ab3dE5gH7jK9mN1pQ3sT5vW7yZ'.repeat(2)}`
    const line = annotation('error', { title: key }, `sent ${key}`)
    expect(line).not.toContain(key)
    expect(line).toContain('[REDACTED')
  })
})

describe('githubOn', () => {
  it('is on under GITHUB_ACTIONS=true, off with the option or FLUX_GITHUB=0', () => {
    expect(githubOn(undefined, { GITHUB_ACTIONS: 'true' })).toBe(true)
    expect(githubOn(undefined, {})).toBe(false)
    expect(githubOn(false, { GITHUB_ACTIONS: 'true' })).toBe(false)
    expect(githubOn(true, { GITHUB_ACTIONS: 'true', FLUX_GITHUB: '0' })).toBe(false)
  })
})

describe('githubAnnotations', () => {
  it("puts an error at a failed test's file and line, titled by its code, with the command that runs it again", () => {
    const lines = githubAnnotations(input([ran('answers', 'failed', [run({ failures: [overflow, { ...overflow, step: 'model#4' }] })])]))
    expect(lines).toEqual([
      '::error file=test/a.test.ts,line=12,title=model_index_overflow::scenario "capital" model#3: model_index_overflow: the run made model call #3, the tape has 2 (+1 more); rerun: npx vitest run test/a.test.ts -t \'^answers$\'',
    ])
  })

  it("takes a refusal's code from the test's fluxlab error, and leaves a failure that is not fluxlab's to the runner", () => {
    const refused = ran('asks', 'failed', [run({ refused: true, modelCalls: 0 })], {
      errors: ['Error: [fluxlab] FLUX_NO_RECORDING: Failed to open scenario "capital": no fixture.\n  • more'],
    })
    const plain = ran('plain', 'failed', [run()], { errors: ['AssertionError: expected 1 to be 2'] })
    const lines = githubAnnotations(input([refused, plain]))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(
      /^::error file=test\/a\.test\.ts,line=12,title=FLUX_NO_RECORDING::\[fluxlab\] FLUX_NO_RECORDING: Failed to open scenario "capital": no fixture\.; rerun: npx vitest run/,
    )
  })

  it('runs a Playwright test again with its config, when the config is not in the working directory, and its project', () => {
    const pw = ran('chat > answers', 'failed', [run({ failures: [overflow] })], {
      project: 'chromium',
      facts: { ...facts('chat > answers', [run({ failures: [overflow] })]), runner: 'playwright' },
    })
    const [line] = githubAnnotations({ ...input([pw]), runner: 'playwright', config: 'e2e/playwright.config.ts' })
    expect(line).toContain("; rerun: npx playwright test -c e2e/playwright.config.ts test/a.test.ts -g 'chat answers$' --project chromium")
    const [plain] = githubAnnotations({ ...input([pw]), runner: 'playwright' })
    expect(plain).toContain("; rerun: npx playwright test test/a.test.ts -g 'chat answers$' --project chromium")
  })

  it('names the command once when the fluxlab error already names it', () => {
    const cmd = "npx vitest run test/a.test.ts -t '^asks$'"
    const refused = ran('asks', 'failed', [], {
      errors: [`Error: [fluxlab] FLUX_NO_RECORDING: Failed to open scenario "capital": no fixture. Record it with \`${cmd}\`.`],
    })
    const [line] = githubAnnotations(input([refused]))
    expect(line.split(cmd)).toHaveLength(2)
    expect(line).not.toContain('; rerun:')
  })

  it("adds no error where the runner's own annotator names the test, and keeps the warnings", () => {
    const tests = [ran('answers', 'failed', [run({ failures: [overflow] })]), ran('drifts', 'passed', [run({ warnings: [drift] })])]
    const lines = githubAnnotations(input(tests, true))
    expect(lines).toEqual([
      '::warning file=test/a.test.ts,line=12,title=model_request_drift::scenario "capital" model#1: request differs from the recording, served by position: messages[0].content differs',
    ])
  })

  it("annotates only the failed tests the runner's annotator could not place", () => {
    const placed = ran('placed', 'failed', [run({ failures: [overflow] })])
    const lost = ran('lost', 'failed', [run({ failures: [overflow] })])
    const lines = githubAnnotations(input([placed, lost], (t) => t === placed))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain("-t '^lost$'")
  })

  it('caps the warnings at 10, the last one counting the rest', () => {
    const tests = Array.from({ length: 14 }, (_, i) => ran(`t${i}`, 'passed', [run({ warnings: [{ ...drift, code: i % 2 ? 'unwrapped_tool' : drift.code }] })]))
    const lines = githubAnnotations(input(tests))
    expect(lines).toHaveLength(10)
    expect(lines[9]).toBe('::warning title=fluxlab::5 more fluxlab warnings: see the run summary in the log')
    expect(lines.filter((l) => l.includes('title=unwrapped_tool'))).toHaveLength(4)
  })
})

describe('stepSummary', () => {
  it('gives the summary line, a row for each scenario that did not replay cleanly, and the cost', () => {
    const tests = [
      ran('clean', 'passed', [run()]),
      ran('over | flows', 'failed', [run({ failures: [overflow], hermetic: false })]),
      ran('drifts', 'passed', [run({ warnings: [drift] })]),
    ]
    const md = stepSummary(input(tests))
    expect(md).toContain('## fluxlab\n\n3 scenarios: 3 replayed, 0 recorded · tests 2 passed, 1 failed, 0 skipped')
    expect(md).toContain(
      '| capital | `test/a.test.ts:12` over \\| flows | diverged (1) | model#3 model_index_overflow: the run made model call #3, the tape has 2 |',
    )
    expect(md).toContain('| capital | `test/a.test.ts:12` drifts | drifted (1) |')
    expect(md).not.toContain('clean')
    expect(md).toContain('Recorded cost: $0.00300')
  })

  it('has a row for a test fluxlab failed before any scenario ran', () => {
    const refused = ran('asks', 'failed', [], { errors: ['Error: [fluxlab] FLUX_NO_RECORDING: Failed to open scenario "capital": no fixture.'] })
    const md = stepSummary(input([refused, ran('plain', 'failed', [], { errors: ['AssertionError: 1 !== 2'] })]))
    expect(md).toContain(
      '| | `test/a.test.ts:12` asks | failed (FLUX_NO_RECORDING) | [fluxlab] FLUX_NO_RECORDING: Failed to open scenario "capital": no fixture. |',
    )
    expect(md).not.toContain('plain')
    expect(md).not.toContain('replayed cleanly')
  })

  it('caps the table at 50 rows, counting the rest, and says so when every scenario replayed cleanly', () => {
    const many = stepSummary(input(Array.from({ length: 52 }, (_, i) => ran(`t${i}`, 'failed', [run({ failures: [overflow] })]))))
    expect(many.split('\n').filter((l) => l.startsWith('| capital |'))).toHaveLength(50)
    expect(many).toContain('| … 2 more |')
    expect(stepSummary(input([ran('clean', 'passed', [run()])]))).toContain('Every scenario replayed cleanly.')
  })

  it('appends to $GITHUB_STEP_SUMMARY and writes the annotations', () => {
    const dir = mkdtempSync(join(tmpdir(), 'flux-gha-'))
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
    const file = join(dir, 'summary.md')
    let out = ''
    const i = input([ran('answers', 'failed', [run({ failures: [overflow] })])])
    reportToGithub(i, (s) => (out += s), { GITHUB_STEP_SUMMARY: file })
    reportToGithub(i, () => {}, { GITHUB_STEP_SUMMARY: file })
    expect(out).toMatch(/^\n::error file=test\/a\.test\.ts,line=12,title=model_index_overflow::/)
    expect(readFileSync(file, 'utf8').match(/## fluxlab/g)).toHaveLength(2)
  })
})

describe('placeable', () => {
  it("is true for a stack with a frame of the project, false for one that is all node_modules and Node's own", () => {
    const exists = (f: string) => !f.includes('gone')
    const ours =
      'FluxError: x\n    at finishTest (/repo/node_modules/fluxlab/dist/index.js:9:3)\n    at /repo/node_modules/@vitest/runner/dist/index.js:1:2\n    at node:internal/process/task_queues:95:5'
    expect(placeable(ours, exists)).toBe(false)
    expect(placeable(`${ours}\n    at /repo/test/a.test.ts:12:15`, exists)).toBe(true)
    expect(placeable('Error\n    at run (file:///repo/src/agent.ts:3:1)', exists)).toBe(true)
    expect(placeable('Error\n    at run (/repo/gone.ts:3:1)', exists)).toBe(false)
    expect(placeable(undefined)).toBe(false)
  })
})

describe('declarationLine', () => {
  it('finds the line that declares a test by its title', () => {
    const text = "import { test } from 'vitest'\n\ndescribe('s', () => {\n  it.concurrent(\"answers\", async () => {})\n  test(`other`, () => {})\n})\n"
    expect(declarationLine('a.ts', 'answers', () => text)).toBe(4)
    expect(declarationLine('a.ts', 'other', () => text)).toBe(5)
    expect(declarationLine('a.ts', 'missing', () => text)).toBeUndefined()
    expect(declarationLine('/no/such/file.ts', 'x')).toBeUndefined()
  })
})
