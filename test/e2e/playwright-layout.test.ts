/**
 * Issue 39 item 1: one fixture root for the Playwright tests and `fluxlab serve`, whatever the layout. The suite is laid
 * out as the issue found it (test/e2e/projects/playwright-subdir): the config in `e2e/`, `webServer.cwd` at the project
 * root, a `node:http` app that builds `new OpenAI()` at import. It is adopted by the edits docs/playwright.md names and
 * nothing else, recorded against the local provider, then replayed with the key unset, CI=1, FLUX_OFFLINE=1 and a
 * tripwire where the provider was: every test keeps its status and nothing is sent, also from a root moved with
 * `withFluxlab(entry, { dir })`. A hand-written serve that reads
 * another root says so at start, with both paths and the fix, and the server that then dies at import gets one line
 * naming the variable and why it had no placeholder. Under GITHUB_ACTIONS=true a failed replay is annotated at the spec's
 * line with a rerun command that names the config (issue 41 item 1).
 */
import { spawn } from 'node:child_process'
import { readdirSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { recordPlaywrightSuite, REPO, type Project, type RecordedSuite } from './support/project.js'

const TIMEOUT = 180_000
const KEY = 'sk-proj-Pl4ywr1ghtLay0utRec0rdingKey0nlyF0rTh1sTest9'
const TITLES = ['answers the capital of UK', 'answers the capital of France', 'shows the page without asking anything']

interface Suite {
  specs?: Array<{ title: string; tests: Array<{ results: Array<{ status: string }> }> }>
  suites?: Suite[]
}

/** Each test's status in a JSON report. */
function statuses(p: Project, file: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (s: Suite) => {
    for (const spec of s.specs ?? []) out[spec.title] = spec.tests[0]?.results.at(-1)?.status ?? 'missing'
    for (const child of s.suites ?? []) walk(child)
  }
  walk(JSON.parse(p.read(file)) as Suite)
  return out
}

describe('a Playwright suite with its config in e2e/ and its webServer at the project root', () => {
  let suite: RecordedSuite
  let project: Project
  const run = (json: string, env: Record<string, string>) => suite.run(json, env)

  beforeAll(async () => {
    suite = await recordPlaywrightSuite('playwright-subdir', {
      key: KEY,
      timeoutMs: TIMEOUT,
      // The adoption, exactly as docs/playwright.md gives it: the webServer entry wrapped, the spec's import swapped.
      adopt: (p) => {
        const config = "import { defineConfig } from '@playwright/test'\n"
        p.edit('e2e/playwright.config.ts', config, `${config}import { withFluxlab } from 'fluxlab/playwright'\n`)
        p.edit('e2e/playwright.config.ts', 'webServer: {', 'webServer: withFluxlab({')
        p.edit('e2e/playwright.config.ts', "stdout: 'pipe',\n  },\n", "stdout: 'pipe',\n  }),\n")
        p.edit('e2e/tests/chat.spec.ts', "from '@playwright/test'", "from 'fluxlab/playwright'")
      },
    })
    project = suite.project
  }, TIMEOUT)
  afterAll(async () => {
    await suite?.remove()
  })

  test('recording passes and writes each test fixture next to the config, with no key in it', () => {
    expect(suite.record.code, suite.record.output).toBe(0)
    expect(statuses(project, 'record.json')).toEqual(Object.fromEntries(TITLES.map((t) => [t, 'passed'])))
    expect(suite.provider.requests.filter((r) => r.kind === 'model')).toHaveLength(4)
    const dirs = readdirSync(project.path('e2e/tests/scenarios')).filter((d) => !d.startsWith('.'))
    expect(dirs.sort()).toEqual([expect.stringContaining('capital-of-france-'), expect.stringContaining('capital-of-uk-')])
    expect(project.read(`e2e/tests/scenarios/${dirs[0]}/scenario.yaml`)).toMatch(/keyVars:\n {2}- OPENAI_API_KEY/)
    for (const d of dirs) expect(project.read(`e2e/tests/scenarios/${d}/model.jsonl`)).not.toContain(KEY.slice(8))
    expect(project.exists('tests/scenarios')).toBe(false)
  })

  test(
    'replay with the key unset, CI=1 and FLUX_OFFLINE=1: the server starts on its placeholder, every test keeps its status, nothing is sent',
    async () => {
      const r = await run('replay.json', { CI: '1', FLUX_OFFLINE: '1' })
      expect.soft(r.output).not.toMatch(/Missing credentials|was not able to start|Failed to find the fixtures/)
      expect.soft(statuses(project, 'replay.json')).toEqual(statuses(project, 'record.json'))
      expect.soft(r.code, r.output).toBe(0)
      expect.soft(suite.wire.connections, 'connections to the closed provider').toBe(0)
    },
    TIMEOUT,
  )

  test(
    'withFluxlab(entry, { dir }) moves the root for the tests and the server together: replay from there passes offline',
    async () => {
      renameSync(project.path('e2e/tests/scenarios'), project.path('e2e/recordings'))
      project.edit('e2e/playwright.config.ts', "stdout: 'pipe',\n  }),\n", "stdout: 'pipe',\n  }, { dir: 'recordings' }),\n")
      try {
        const r = await run('moved.json', { CI: '1', FLUX_OFFLINE: '1' })
        expect.soft(statuses(project, 'moved.json')).toEqual(statuses(project, 'record.json'))
        expect.soft(r.code, r.output).toBe(0)
        expect.soft(project.exists('e2e/tests/scenarios'), 'a fixture written at the old root').toBe(false)
        expect.soft(suite.wire.connections, 'connections to the closed provider').toBe(0)
      } finally {
        project.edit('e2e/playwright.config.ts', "stdout: 'pipe',\n  }, { dir: 'recordings' }),\n", "stdout: 'pipe',\n  }),\n")
        renameSync(project.path('e2e/recordings'), project.path('e2e/tests/scenarios'))
      }
    },
    TIMEOUT,
  )

  // Issue 41 item 1 on Playwright: a test whose fixture is gone fails a CI replay under GITHUB_ACTIONS=true; fluxlab's
  // reporter puts the error at the spec's own line, and its rerun command names the config, as run from the project root.
  test(
    'under GITHUB_ACTIONS=true a failed replay gets an ::error at the spec line whose rerun command carries -c',
    async () => {
      const reporters = "reporter: [['list'], "
      const uk = readdirSync(project.path('e2e/tests/scenarios')).find((d) => d.includes('capital-of-uk-'))!
      project.edit('e2e/playwright.config.ts', reporters, `${reporters}['fluxlab/playwright-reporter'], `)
      renameSync(project.path(`e2e/tests/scenarios/${uk}`), project.path(`e2e/${uk}.away`))
      try {
        const summary = project.path('step-summary.md')
        const r = await run('gha.json', { CI: '1', FLUX_OFFLINE: '1', GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary })
        expect.soft(statuses(project, 'gha.json')['answers the capital of UK']).toBe('failed')
        const errors = r.output.split('\n').filter((l) => l.startsWith('::error '))
        expect(errors, r.output).toHaveLength(1)
        expect(errors[0]).toMatch(/^::error file=e2e\/tests\/chat\.spec\.ts,line=4,title=FLUX_NO_RECORDING::/)
        expect(errors[0]).toContain("npx playwright test -c e2e/playwright.config.ts tests/chat.spec.ts -g 'answers the capital of UK$'")
        expect(project.read('step-summary.md')).toContain('fluxlab')
        expect(r.output).not.toContain(KEY.slice(8))
      } finally {
        renameSync(project.path(`e2e/${uk}.away`), project.path(`e2e/tests/scenarios/${uk}`))
        project.edit('e2e/playwright.config.ts', `${reporters}['fluxlab/playwright-reporter'], `, reporters)
      }
    },
    TIMEOUT,
  )

  // The hand-written entry of the docs (`npx fluxlab serve -- …` with `cwd: '..'`) runs serve at the project root,
  // where no fixture is: serve says so before the server starts, and then why the server died.
  test(
    'serve that reads a root with no fixture while the tests have some says so at start, and names why the server died',
    async () => {
      const cli = join(REPO, 'dist/cli.js')
      const { PORT, OPENAI_BASE_URL } = suite.env('unused.json')
      const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', CI: '1', FLUX_OFFLINE: '1', PORT, OPENAI_BASE_URL }
      const r = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
        const argv = [cli, 'serve', '--ready', `http://127.0.0.1:${PORT}/health`, '--', 'node', 'server.mjs']
        const child = spawn(process.execPath, argv, { cwd: project.dir, env, stdio: ['ignore', 'pipe', 'pipe'] })
        let output = ''
        child.stdout.on('data', (d: Buffer) => (output += d.toString()))
        child.stderr.on('data', (d: Buffer) => (output += d.toString()))
        const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
        child.on('error', reject)
        child.on('close', (code) => (clearTimeout(timer), resolve({ code, output })))
      })
      const lines = r.output.split('\n')
      const warning = lines.findIndex((l) => l.startsWith('[fluxlab] Failed to find the fixtures of the Playwright tests'))
      expect(lines[warning], r.output).toContain("serve reads tests/scenarios/, which holds no fixture, while the tests' fixtures are in e2e/tests/scenarios/")
      expect(lines[warning]).toContain('fluxlab serve --dir e2e/tests/scenarios')
      expect(warning, 'the warning comes before the server starts').toBeLessThan(lines.findIndex((l) => l.includes('OpenAIError')))
      expect(r.code).not.toBe(0)
      const death = lines.filter((l) => l.startsWith('[fluxlab] Failed to start the app server'))
      expect(death, r.output).toHaveLength(1)
      expect(death[0]).toContain(
        "OPENAI_API_KEY is unset and got no placeholder: no fixture in tests/scenarios/, while the tests' fixtures are in e2e/tests/scenarios/",
      )
      expect(r.output).not.toContain(KEY.slice(8))
    },
    TIMEOUT,
  )
})
