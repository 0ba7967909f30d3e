// The run summary: vitest (added by the fluxlab() plugin) and jest (the preset's reporter), each run as a
// child process on a copy of the end-to-end fixture projects: once recording, once replaying with drift and
// a fixture no test opened.
import { cpSync, writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startCapitalServer } from '../e2e/support/capital-server.js'
import { assertBuilt, createProject, linkSelf, runJest, runVitest, type Project, type RunResult } from '../e2e/support/project.js'

const TIMEOUT = 120_000
const projects: Project[] = []
afterAll(() => {
  if (!process.env.E2E_KEEP) for (const p of projects) p.remove()
})

interface Kit {
  name: 'vitest' | 'jest'
  template: 'vitest-agent' | 'jest-agent'
  file: string
  run(p: Project, args: string[], env: Record<string, string>): Promise<RunResult>
}

const kits: Kit[] = [
  { name: 'vitest', template: 'vitest-agent', file: 'capital.test.ts', run: (p, a, e) => runVitest(p, a, e) },
  { name: 'jest', template: 'jest-agent', file: 'capital.test.cjs', run: (p, a, e) => runJest(p, a, e) },
]

/** The summary block: from the ` fluxlab ` tag to the end of its indented lines. */
function summary(output: string): string {
  const lines = output.split('\n')
  const start = lines.findIndex((l) => l.startsWith(' fluxlab '))
  if (start < 0) throw new Error(`no fluxlab summary in:\n${output}`)
  const out = [lines[start]]
  for (const l of lines.slice(start + 1)) {
    if (!l.startsWith('          ')) break
    out.push(l)
  }
  return out.join('\n')
}

for (const kit of kits)
  describe(`${kit.name}: the fluxlab run summary`, () => {
    let recorded: RunResult
    let seed: Project
    let url: string

    beforeAll(async () => {
      assertBuilt()
      linkSelf()
      const server = await startCapitalServer()
      url = server.url
      seed = createProject(kit.template)
      projects.push(seed)
      recorded = await kit.run(seed, [kit.file], { PROVIDER_URL: url })
      await server.close()
    }, TIMEOUT)

    test('a recording run: 1 recorded, the live model calls and what they cost', () => {
      expect(recorded.code, recorded.output).toBe(0)
      expect(summary(recorded.output)).toBe(
        ' fluxlab  1 scenario: 0 replayed, 1 recorded · tests 1 passed, 0 failed, 0 skipped · hermetic 0/0 · live model calls 2 · recorded cost $0.0000341 · drift warnings 0',
      )
    })

    test(
      'a replay run: hermetic count, drift warnings, and fixtures no test opened with the command that removes them',
      async () => {
        const p = createProject(kit.template)
        projects.push(p)
        p.copyScenariosFrom(seed)
        // A fixture whose test was renamed (its source test ran, and no test opened it): obsolete.
        cpSync(p.path('tests/scenarios/capital'), p.path('tests/scenarios/old-name'), { recursive: true })
        p.edit('tests/scenarios/old-name/scenario.yaml', 'name: answers with the capital after calling the geography tool', 'name: a test that was renamed')
        // A fixture of a test file that did not run this time: says nothing.
        cpSync(p.path('tests/scenarios/capital'), p.path('tests/scenarios/elsewhere'), { recursive: true })
        p.edit('tests/scenarios/elsewhere/scenario.yaml', `file: ${kit.file}`, `file: other.test.${kit.name === 'jest' ? 'cjs' : 'ts'}`)
        // A fixture recorded by `fluxlab record` (no source test): never the runner's to remove.
        cpSync(p.path('tests/scenarios/capital'), p.path('tests/scenarios/cli-recorded'), { recursive: true })
        const manifest = p.read('tests/scenarios/cli-recorded/scenario.yaml').replace(/^source:\n(  .*\n)+/m, '')
        writeFileSync(p.path('tests/scenarios/cli-recorded/scenario.yaml'), manifest)
        p.edit(kit.file, 'then answer.', 'then answer in one sentence.')
        const args = kit.name === 'vitest' ? [kit.file, '--reporter=dot'] : [kit.file]
        const r = await kit.run(p, args, { PROVIDER_URL: url })
        expect(r.code, r.output).toBe(0)
        const text = summary(r.output)
        expect(text.split('\n')[0]).toBe(
          ' fluxlab  1 scenario: 1 replayed, 0 recorded · tests 1 passed, 0 failed, 0 skipped · hermetic 1/1 · live model calls 0 · recorded cost $0.0000341 · drift warnings 2',
        )
        expect(text).toContain('          ⚠ capital model#1 model_request_drift: messages[0].content differs')
        expect(text).toContain('          ⚠ capital model#2 model_request_drift:')
        expect(text).toContain(
          '          1 fixture no test opened (obsolete, like an obsolete snapshot):\n            tests/scenarios/old-name\n          remove it with: rm -r tests/scenarios/old-name',
        )
        expect(text).not.toContain('elsewhere')
        expect(text).not.toContain('cli-recorded')
      },
      TIMEOUT,
    )
  })
