/**
 * Issue 41 item 1, end to end: a replay that leaves its tape (one model call more than recorded) under
 * `GITHUB_ACTIONS=true` prints an `::error` at the test's own file and line, titled with the divergence's code and
 * ending with the command that runs the test again, and appends the run summary to `$GITHUB_STEP_SUMMARY`; where the
 * runner's own annotator already names the failed test (vitest adds `github-actions` when given no reporter) fluxlab
 * adds no second error, only the step summary; `FLUX_GITHUB=0` turns it all off. vitest and jest, the same capital agent.
 */
import { existsSync, readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startCapitalServer, type CapitalServer } from './support/capital-server.js'
import { expectExit } from './support/modes.js'
import { assertBuilt, createProject, linkSelf, runJest, runVitest, type Project, type RunResult } from './support/project.js'

const TIMEOUT = 150_000
const NAME = 'answers with the capital after calling the geography tool'
/** A key of the shape fluxlab's redactor knows, put in the prompt by a test: it must reach no annotation. */
const SECRET = `sk-proj-${'Qw3rTy7uI9oP1aS5dF8gH2jK'.repeat(2)}`

interface Kit {
  name: 'vitest' | 'jest'
  template: 'vitest-agent' | 'jest-agent'
  file: string
  optionsDecl: string
  run(p: Project, args: string[], env: Record<string, string>): Promise<RunResult>
  command: string
}
const KITS: Kit[] = [
  {
    name: 'vitest',
    template: 'vitest-agent',
    file: 'capital.test.ts',
    optionsDecl: 'const OPTIONS: AgentOptions = {}',
    run: runVitest,
    command: `npx vitest run capital.test.ts -t '^${NAME}$'`,
  },
  {
    name: 'jest',
    template: 'jest-agent',
    file: 'capital.test.cjs',
    optionsDecl: 'const OPTIONS = {}',
    run: runJest,
    command: `npx jest capital.test.cjs -t '^${NAME}$'`,
  },
]

const projects: Project[] = []
let server: CapitalServer
beforeAll(async () => {
  assertBuilt()
  linkSelf()
  server = await startCapitalServer()
})
afterAll(async () => {
  await server?.close()
  if (!process.env.E2E_KEEP) for (const p of projects) p.remove()
})

/** The line of the test's declaration in its file, read from the file. */
const lineOf = (p: Project, file: string) =>
  p
    .read(file)
    .split('\n')
    .findIndex((l) => l.includes(`test('${NAME}'`)) + 1

describe.each(KITS)('$name under GITHUB_ACTIONS=true', (kit) => {
  let seed: Project
  beforeAll(async () => {
    seed = createProject(kit.template)
    projects.push(seed)
    expectExit(await kit.run(seed, [kit.file], { PROVIDER_URL: server.url }), 0)
  }, TIMEOUT)

  /** A copy of the recorded project whose agent makes one model call more than its tape has. */
  const diverging = (): Project => {
    const p = createProject(kit.template)
    projects.push(p)
    p.copyScenariosFrom(seed)
    p.edit(kit.file, kit.optionsDecl, kit.optionsDecl.replace('{}', '{ extraTurn: true }'))
    return p
  }
  const gha = (p: Project, extra: Record<string, string> = {}) => ({
    PROVIDER_URL: server.url,
    GITHUB_ACTIONS: 'true',
    GITHUB_STEP_SUMMARY: p.path('step-summary.md'),
    ...extra,
  })
  const ours = (output: string) => output.split('\n').filter((l) => /^::(error|warning) .*title=(model_|FLUX_|unwrapped_tool|fluxlab)/.test(l))

  test.concurrent(
    "a diverging replay: an ::error at the test's file and line, with the rerun command, and the step summary",
    async () => {
      const p = diverging()
      const args = kit.name === 'vitest' ? [kit.file, '--reporter=default'] : [kit.file]
      const r = await kit.run(p, args, gha(p))
      expectExit(r, 1)
      const line = lineOf(p, kit.file)
      expect(line).toBeGreaterThan(1)
      const errors = ours(r.output)
      expect(errors, r.output).toHaveLength(1)
      expect(errors[0]).toMatch(
        new RegExp(`^::error file=${kit.file.replace('.', '\\.')},line=${line},title=model_index_overflow::scenario "capital" model#3: model_index_overflow: `),
      )
      expect(errors[0].endsWith(`; rerun: ${kit.command}`), errors[0]).toBe(true)
      const md = p.read('step-summary.md')
      expect(md).toContain('## fluxlab')
      expect(md).toMatch(/1 scenario: 1 replayed, 0 recorded · tests 0 passed, 1 failed/)
      expect(md).toContain(`| capital | \`${kit.file}:${line}\` ${NAME} | diverged (1) | model#3 model_index_overflow:`)
      expect(md).toMatch(/Recorded cost: \$/)
    },
    TIMEOUT,
  )

  test.concurrent(
    'a refusal under CI (no fixture): an ::error titled FLUX_NO_RECORDING at the test, naming the record command once, and its row',
    async () => {
      const p = createProject(kit.template)
      projects.push(p)
      const args = kit.name === 'vitest' ? [kit.file, '--reporter=default'] : [kit.file]
      const r = await kit.run(p, args, gha(p, { CI: '1' }))
      expectExit(r, 1)
      const line = lineOf(p, kit.file)
      const errors = ours(r.output)
      expect(errors, r.output).toHaveLength(1)
      expect(errors[0]).toMatch(
        new RegExp(`^::error file=${kit.file.replace('.', '\\.')},line=${line},title=FLUX_NO_RECORDING::\\[fluxlab\\] FLUX_NO_RECORDING: `),
      )
      expect(errors[0].split(kit.command)).toHaveLength(3) // the record command and the same under FLUX_GOLDEN=update, no third
      expect(p.read('step-summary.md')).toContain(`| | \`${kit.file}:${line}\` ${NAME} | failed (FLUX_NO_RECORDING) |`)
    },
    TIMEOUT,
  )

  test.concurrent(
    'FLUX_GITHUB=0: no annotation, no step summary',
    async () => {
      const p = diverging()
      const r = await kit.run(p, [kit.file], gha(p, { FLUX_GITHUB: '0' }))
      expectExit(r, 1)
      expect(ours(r.output)).toEqual([])
      // vitest's own github-actions reporter writes a job summary of its own there
      expect(existsSync(p.path('step-summary.md')) ? p.read('step-summary.md') : '').not.toContain('fluxlab')
    },
    TIMEOUT,
  )

  test.concurrent(
    "a drifting replay passes with a ::warning at the test's line, and no secret of the prompt reaches an annotation or the summary",
    async () => {
      const p = createProject(kit.template)
      projects.push(p)
      p.copyScenariosFrom(seed)
      p.edit(kit.file, 'then answer.', `then answer. Token ${SECRET}`)
      const r = await kit.run(p, [kit.file], gha(p))
      expectExit(r, 0)
      const warnings = ours(r.output)
      // both model calls carry the changed prompt
      expect(warnings, r.output).toHaveLength(2)
      expect(warnings[1]).toContain('model#2: ')
      expect(warnings[0]).toMatch(
        new RegExp(`^::warning file=${kit.file.replace('.', '\\.')},line=${lineOf(p, kit.file)},title=model_request_drift::scenario "capital" model#1: `),
      )
      const md = p.read('step-summary.md')
      expect(md).toContain(`| capital | \`${kit.file}:${lineOf(p, kit.file)}\` ${NAME} | drifted (2) |`)
      for (const text of [...warnings, md]) expect(text).not.toContain(SECRET)
    },
    TIMEOUT,
  )

  if (kit.name === 'vitest')
    test.concurrent(
      "vitest's own github-actions reporter names the failed test: no second error from fluxlab, the step summary still written",
      async () => {
        const p = diverging()
        const r = await kit.run(p, [kit.file], gha(p))
        expectExit(r, 1)
        // (its file is the nearest stack frame of a module vite transformed: here fluxlab's dist/, in a real project the test file)
        expect(r.output).toMatch(new RegExp(`^::error file=[^,]+,title=${kit.file.replace('.', '\\.')} > ${NAME},line=\\d+`, 'm'))
        expect(ours(r.output)).toEqual([])
        expect(readFileSync(p.path('step-summary.md'), 'utf8')).toContain(`| capital | \`${kit.file}:${lineOf(p, kit.file)}\``)
      },
      TIMEOUT,
    )
})
