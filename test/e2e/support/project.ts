/**
 * End-to-end plumbing: copy a fixture project from `test/e2e/projects/` into a temp dir inside the
 * repo (so `openai`, `vitest`, `jest` and the `fluxlab` self-link resolve from the repo's
 * node_modules), run the real runner on it as a child process, and look at the files it wrote.
 */
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { availableParallelism } from 'node:os'
import { basename, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startCapitalServer, tripwire, type CapitalServer, type Tripwire } from './capital-server.js'

export const REPO = fileURLToPath(new URL('../../../', import.meta.url))
const PROJECTS = join(REPO, 'test/e2e/projects')
const TMP = join(REPO, '.e2e-tmp')
const VITEST_BIN = join(REPO, 'node_modules/vitest/vitest.mjs')
const JEST_BIN = join(REPO, 'node_modules/jest/bin/jest.js')
const PLAYWRIGHT_BIN = join(REPO, 'node_modules/@playwright/test/cli.js')

/** Fail early, with the fix, when the package has not been built (the projects load `dist/`). */
export function assertBuilt(): void {
  const missing = ['dist/index.js', 'dist/index.cjs', 'dist/vitest.js', 'dist/vitest-setup.js', 'dist/jest.cjs', 'jest-preset.cjs'].filter(
    (f) => !existsSync(join(REPO, f)),
  )
  if (missing.length) throw new Error(`e2e: ${missing.join(', ')} missing. Build first: \`npm run build\` (\`npm test\` does it).`)
}

/** `node_modules/fluxlab -> ..`, so fixture projects import `fluxlab` by name. Safe when several files race to create it. */
export function linkSelf(): void {
  const link = join(REPO, 'node_modules/fluxlab')
  try {
    symlinkSync('..', link, 'dir')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
  }
  if (!lstatSync(link).isSymbolicLink() || realpathSync(link) !== realpathSync(REPO))
    throw new Error(`e2e: ${link} exists but does not point at the repo root; remove it and re-run`)
}

export interface FileState {
  mtimeMs: number
  sha: string
}

export interface RunResult {
  code: number | null
  /** stdout + stderr. */
  output: string
  ms: number
}

/** A throwaway copy of a fixture project. */
export class Project {
  constructor(readonly dir: string) {}

  path(rel: string): string {
    return join(this.dir, rel)
  }

  exists(rel: string): boolean {
    return existsSync(this.path(rel))
  }

  read(rel: string): string {
    return readFileSync(this.path(rel), 'utf8')
  }

  write(rel: string, text: string): void {
    mkdirSync(join(this.path(rel), '..'), { recursive: true })
    writeFileSync(this.path(rel), text)
  }

  /** Replace one exact snippet; throws when the snippet is not there, so a stale edit cannot pass silently. */
  edit(rel: string, from: string, to: string): void {
    const text = this.read(rel)
    if (!text.includes(from)) throw new Error(`e2e: ${rel} has no ${JSON.stringify(from)}`)
    this.write(rel, text.split(from).join(to))
  }

  /** The fixture directories directly under `tests/scenarios/` (not `.files/`, which keeps each test file's key names). */
  fixtureDirs(): string[] {
    return existsSync(this.path('tests/scenarios')) ? readdirSync(this.path('tests/scenarios')).filter((d) => !d.startsWith('.')) : []
  }

  /** Every file under `tests/scenarios/`, relative to it, with mtime and content hash. */
  scenarioFiles(): Record<string, FileState> {
    const root = this.path('tests/scenarios')
    const out: Record<string, FileState> = {}
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const full = join(dir, name)
        const st = statSync(full)
        if (st.isDirectory()) walk(full)
        else out[relative(root, full).split(sep).join('/')] = { mtimeMs: st.mtimeMs, sha: createHash('sha256').update(readFileSync(full)).digest('hex') }
      }
    }
    if (existsSync(root)) walk(root)
    return out
  }

  /** Copy another project's recorded fixtures in (reuse one recording across cases). */
  copyScenariosFrom(other: Project): void {
    cpSync(other.path('tests/scenarios'), this.path('tests/scenarios'), { recursive: true, preserveTimestamps: true })
  }

  /** Each test's status in a vitest or jest JSON report the project wrote: `test/a.test.ts > full name` → `passed`. */
  statuses(report: string): Record<string, string> {
    const { testResults } = JSON.parse(this.read(report)) as {
      testResults: Array<{ name: string; assertionResults: Array<{ fullName: string; status: string }> }>
    }
    return Object.fromEntries(testResults.flatMap((f) => f.assertionResults.map((a) => [`${f.name.slice(this.dir.length + 1)} > ${a.fullName}`, a.status])))
  }

  /** Lines the fixture agent logged (one JSON object per line in `agent-log.jsonl`). */
  agentLog(): Array<Record<string, unknown>> {
    if (!this.exists('agent-log.jsonl')) return []
    return this.read('agent-log.jsonl')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true })
  }
}

/** The fixture projects under `test/e2e/projects/`. */
export type Template =
  | 'vitest-agent'
  | 'jest-agent'
  | 'vitest-suite'
  | 'jest-suite'
  | 'vitest-full-suite'
  | 'jest-full-suite'
  | 'jest-esm-suite'
  | 'vitest-app-mocks'
  | 'vitest-verdict'
  | 'jest-verdict'
  | 'jest-in-band'
  | 'vitest-one-worker'
  | 'vitest-children'
  | 'jest-children'
  | 'playwright-subdir'
  | 'playwright-counts'
  | 'vitest-child-routes'

/** Files some templates share, from `test/e2e/projects/shared/`: where each goes in the project, and which file it is. */
const SHARED: Partial<Record<Template, Record<string, string>>> = {
  'playwright-subdir': { 'server.mjs': 'playwright-chat-server.mjs' },
  'playwright-counts': { 'server.mjs': 'playwright-chat-server.mjs' },
}

/** Copy `test/e2e/projects/<template>` (and the shared files it names) to a fresh dir under `.e2e-tmp/`. */
export function createProject(template: Template): Project {
  mkdirSync(TMP, { recursive: true })
  const dir = mkdtempSync(join(TMP, `${template}-`))
  cpSync(join(PROJECTS, template), dir, { recursive: true })
  for (const [to, from] of Object.entries(SHARED[template] ?? {})) cpSync(join(PROJECTS, 'shared', from), join(dir, to))
  return new Project(dir)
}

/** A throwaway copy of a directory of the repo (an example app) as a project, its test output and fixtures left out. */
export function copyProject(from: string): Project {
  mkdirSync(TMP, { recursive: true })
  const dir = mkdtempSync(join(TMP, `${basename(from)}-`))
  // @note its committed fixtures stay behind: the test records its own.
  cpSync(join(REPO, from), dir, { recursive: true, filter: (src) => !/[\\/](test-results|playwright-report)$|[\\/]tests[\\/]scenarios$/.test(src) })
  return new Project(dir)
}

/** Variables that would change the runner's update state or fluxlab's mode if inherited from the parent run. */
const INHERITED_SWITCHES =
  /^(PROVIDER_URL|GEO_URL|AGENT_LOG|CI|CONTINUOUS_INTEGRATION|BUILD_ID|BUILD_NUMBER|RUN_ID|GITHUB_ACTIONS|GITLAB_CI|BUILDKITE|CIRCLECI|TRAVIS|TF_BUILD|JENKINS_URL|TEAMCITY_VERSION|FLUX_.*|VITEST.*|JEST_.*|NODE_ENV|NODE_OPTIONS|TEST|FORCE_COLOR)$/

function childEnv(project: Project, env: Record<string, string>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) if (!INHERITED_SWITCHES.test(k)) out[k] = v
  return { ...out, NO_COLOR: '1', AGENT_LOG: project.path('agent-log.jsonl'), ...env }
}

/** Child runners at once: more only thrash the CPU (each runner is a few CPU-seconds of startup). */
const SLOTS = Math.max(2, availableParallelism())
let busy = 0
const waiting: Array<() => void> = []

async function inSlot<T>(fn: () => Promise<T>): Promise<T> {
  if (busy >= SLOTS) await new Promise<void>((resolve) => waiting.push(resolve))
  busy++
  try {
    return await fn()
  } finally {
    busy--
    waiting.shift()?.()
  }
}

function run(bin: string, project: Project, args: string[], env: Record<string, string>, timeoutMs: number): Promise<RunResult> {
  return inSlot(() => spawnRunner(bin, project, args, env, timeoutMs))
}

function spawnRunner(
  bin: string,
  project: Project,
  args: string[],
  env: Record<string, string>,
  timeoutMs: number,
  program = process.execPath,
): Promise<RunResult> {
  const start = Date.now()
  return new Promise((resolve, reject) => {
    const child = spawn(program, [bin, ...args], { cwd: project.dir, env: childEnv(project, env), stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (d: Buffer) => (output += d.toString()))
    child.stderr.on('data', (d: Buffer) => (output += d.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, output, ms: Date.now() - start })
    })
  })
}

/** `vitest run <args>` in the project. */
export function runVitest(project: Project, args: string[], env: Record<string, string> = {}, timeoutMs = 120_000): Promise<RunResult> {
  return run(VITEST_BIN, project, ['run', ...args], env, timeoutMs)
}

/** `playwright test <args>` in the project. */
export function runPlaywright(project: Project, args: string[], env: Record<string, string> = {}, timeoutMs = 120_000): Promise<RunResult> {
  return run(PLAYWRIGHT_BIN, project, ['test', ...args], env, timeoutMs)
}

/** `playwright merge-reports <args>` in the project. */
export function mergePlaywrightReports(project: Project, args: string[], env: Record<string, string> = {}, timeoutMs = 120_000): Promise<RunResult> {
  return run(PLAYWRIGHT_BIN, project, ['merge-reports', ...args], env, timeoutMs)
}

/** A command line as a user types it (a command fluxlab printed), run by `sh -c` in the project's root. */
export function runCommandLine(project: Project, line: string, env: Record<string, string> = {}, timeoutMs = 120_000): Promise<RunResult> {
  return inSlot(() => spawnRunner('-c', project, [line], env, timeoutMs, '/bin/sh'))
}

/** `jest <args>` in the project. */
export function runJest(project: Project, args: string[], env: Record<string, string> = {}, timeoutMs = 120_000): Promise<RunResult> {
  return run(JEST_BIN, project, ['--watchman=false', ...args], env, timeoutMs)
}

/** A free port on 127.0.0.1 (an app server's). */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** A Playwright project of issue 39 (config in `e2e/`), recorded against a local provider that is closed since. */
export interface RecordedSuite {
  readonly project: Project
  /** The provider the recording used: closed, its requests still logged. */
  readonly provider: CapitalServer
  /** Where the provider was: the connections every later run made there. */
  readonly wire: Tripwire
  readonly record: RunResult
  /** What a run needs besides its mode: the app server's port, the provider's URLs, the browser, the JSON report's path. */
  env(json: string): Record<string, string>
  /** `playwright test -c e2e <args>`, its JSON report written to `json`. */
  run(json: string, env?: Record<string, string>, args?: string[]): Promise<RunResult>
  remove(): Promise<void>
}

/**
 * The steps issue 39's Playwright tests share: copy the project and make its adoption edits, record it with the key set
 * against a local provider, then close the provider and set a tripwire where it was, for the offline runs that follow.
 * @example
 * const suite = await recordPlaywrightSuite('playwright-counts', { key, timeoutMs })
 * const replay = await suite.run('replay.json', { CI: '1', FLUX_OFFLINE: '1' })
 */
export async function recordPlaywrightSuite(template: Template, o: { key: string; timeoutMs: number; adopt?: (p: Project) => void }): Promise<RecordedSuite> {
  assertBuilt()
  linkSelf()
  const chromium = (await import('@sparticuz/chromium')).default
  // @note without --single-process: with it the browser dies when the first test's context closes
  const browser = { CHROMIUM_PATH: await chromium.executablePath(), CHROMIUM_ARGS: JSON.stringify(chromium.args.filter((a) => a !== '--single-process')) }
  const port = await freePort()
  const project = createProject(template)
  o.adopt?.(project)
  const provider = await startCapitalServer()
  const env = (json: string) => ({ PORT: String(port), PW_JSON: project.path(json), OPENAI_BASE_URL: `${provider.url}/v1`, GEO_URL: provider.url, ...browser })
  const run = (json: string, extra: Record<string, string> = {}, args: string[] = []) =>
    runPlaywright(project, ['-c', 'e2e', ...args], { ...env(json), ...extra }, o.timeoutMs)
  const record = await run('record.json', { OPENAI_API_KEY: o.key })
  await provider.close()
  const wire = await tripwire(provider.url)
  return { project, provider, wire, record, env, run, remove: async () => (await wire.close(), project.remove()) }
}
