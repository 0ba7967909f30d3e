/**
 * Trace a real replay of an example: instrument a copy of src/ (`instrument.ts`), point a vitest config shaped like
 * examples/vitest.config.ts (root examples/, the fluxlab plugin with `dir: 'scenarios'`, FLUX_OFFLINE=1) at that copy,
 * run the example's test file unmodified in a child vitest with no key set, and read back the windows the tracer wrote.
 * The copy lives under .path-trace-tmp/ in the repository (so it resolves the repository's node_modules) and is removed
 * afterwards; FLUX_PATH_KEEP=1 keeps it, to read the instrumented sources.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { instrumentTree } from './instrument.js'
import type { Target, TraceOutput } from './tracer.js'

export const REPO = fileURLToPath(new URL('../../../', import.meta.url))
/** Where a window starts: the first function entered in this folder for the request. */
export const START_FOLDER = 'src/sources/'
const TMP = join(REPO, '.path-trace-tmp')
const VITEST_BIN = join(REPO, 'node_modules/vitest/vitest.mjs')
const SETUP = fileURLToPath(new URL('./trace-setup.ts', import.meta.url))

export interface ExampleTrace extends TraceOutput {
  /** The child vitest's exit code and output (the example's own assertions must pass). */
  code: number | null
  log: string
  /** Instrumenting src/: files, functions, ms; and the child run's wall time. */
  cost: { files: number; functions: number; instrumentMs: number; runMs: number }
}

/** Variables of the parent run that would change the child's mode, keys or network (the keys stay unset). */
const DROPPED =
  /^(CI|CONTINUOUS_INTEGRATION|GITHUB_ACTIONS|FLUX_.*|VITEST.*|JEST_.*|NODE_ENV|NODE_OPTIONS|TEST|FORCE_COLOR|GEO_API_URL|.*_BASE_URL|.*(API_?KEY|TOKEN|SECRET).*)$/i

interface TraceOptions {
  testFile: string
  targets: Target[]
  keys?: string[]
  timeoutMs?: number
  /** The fixture root (the plugin's `dir`; default examples/scenarios). */
  fixtures?: string
  /** Record (`FLUX_GOLDEN=update`, online) instead of replaying offline. */
  record?: boolean
  /** Variables set in the child after the parent's keys, modes and base URLs were dropped. */
  env?: Record<string, string>
}

/**
 * Run `examples/<testFile>` replaying (or recording) under the tracer, watching `targets`.
 * `keys` goes to FLUX_KEYS: the variables the replay fills (see the report: the examples' fixtures name none).
 * @example
 * const trace = await traceExample({ testFile: 'capital-agent/capital.test.ts', targets, keys: ['OPENAI_API_KEY'] })
 */
export async function traceExample(opts: TraceOptions): Promise<ExampleTrace> {
  mkdirSync(TMP, { recursive: true })
  const dir = mkdtempSync(join(TMP, 'run-'))
  try {
    const tree = instrumentTree(join(REPO, 'src'), dir, { startFolder: START_FOLDER })
    const out = join(dir, 'trace.json')
    const src = (p: string) => JSON.stringify(join(tree.dir, p))
    // Shaped like examples/vitest.config.ts, with fluxlab resolved to the instrumented copy (the plugin's setup file with it).
    writeFileSync(
      join(dir, 'vitest.config.ts'),
      `import { defineConfig } from 'vitest/config'
import { fluxlab } from ${src('vitest.ts')}

export default defineConfig({
  root: ${JSON.stringify(join(REPO, 'examples'))},
  cacheDir: ${JSON.stringify(join(dir, '.vite'))},
  resolve: {
    alias: [
      { find: /^fluxlab\\/vitest$/, replacement: ${src('vitest.ts')} },
      { find: /^fluxlab\\/jest$/, replacement: ${src('jest.ts')} },
      { find: /^fluxlab\\/matchers$/, replacement: ${src('matchers/index.ts')} },
      { find: /^fluxlab$/, replacement: ${src('index.ts')} },
    ],
  },
  plugins: [fluxlab({ dir: ${JSON.stringify(opts.fixtures ?? 'scenarios')} })],
  test: { include: [${JSON.stringify(opts.testFile)}], setupFiles: [${JSON.stringify(SETUP)}] },
})
`,
    )
    const env: NodeJS.ProcessEnv = {}
    for (const [k, v] of Object.entries(process.env)) if (!DROPPED.test(k)) env[k] = v
    Object.assign(env, {
      NO_COLOR: '1',
      ...(opts.record ? { FLUX_GOLDEN: 'update' } : { FLUX_OFFLINE: '1' }),
      ...(opts.keys?.length ? { FLUX_KEYS: opts.keys.join(',') } : {}),
      FLUX_PATH_TRACE: JSON.stringify({ targets: opts.targets, out, startFolder: START_FOLDER }),
      ...opts.env,
    })
    const started = performance.now()
    const { code, log } = await run([VITEST_BIN, 'run', '--config', join(dir, 'vitest.config.ts'), '--configLoader', 'runner'], env, opts.timeoutMs ?? 60_000)
    const runMs = Math.round(performance.now() - started)
    if (!existsSync(out)) throw new Error(`the traced example wrote no trace (vitest exited ${code}):\n${log}`)
    const trace = JSON.parse(readFileSync(out, 'utf8')) as TraceOutput
    return { ...trace, code, log, cost: { files: tree.files, functions: tree.functions, instrumentMs: tree.ms, runMs } }
  } finally {
    if (!process.env.FLUX_PATH_KEEP) rmSync(dir, { recursive: true, force: true })
  }
}

function run(args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ code: number | null; log: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let log = ''
    child.stdout.on('data', (d: Buffer) => (log += d.toString()))
    child.stderr.on('data', (d: Buffer) => (log += d.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, log })
    })
  })
}
