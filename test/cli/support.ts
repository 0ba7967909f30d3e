/**
 * Plumbing for the CLI suite: run `node dist/cli.js` as a child process, make fixture directories
 * with the real engine (`scenario()` against the local provider server, or a copy of the committed
 * example), and break copies of them by hand for each error path.
 */
import { spawn } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readFixture, scenario, type Lab } from 'fluxlab'
import OpenAI from 'openai'
import { fixtureSteps, renderTrace } from '../../src/golden/trace.js'
import { loadExchanges, openaiBaseURL, startProviderServer } from '../support/index.js'
import { assertBuilt, REPO } from '../e2e/support/project.js'

export { assertBuilt, REPO }
export const CLI = join(REPO, 'dist/cli.js')
export const AGENT = join(REPO, 'test/cli/fixtures/agent.mjs')
export const EXAMPLE = join(REPO, 'examples/scenarios/capital-agent')

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
  /** stdout + stderr, in the order they arrived. */
  output: string
  ms: number
}

/** Variables of the parent run that would change a mode or the colours of the child. */
const SWITCHES =
  /^(CI|FLUX_.*|VITEST.*|JEST_.*|NODE_OPTIONS|FORCE_COLOR|NO_COLOR|PROVIDER_URL|OPENAI_API_KEY|ANTHROPIC_API_KEY|GEMINI_API_KEY|GOOGLE_API_KEY|GOOGLE_GENERATIVE_AI_API_KEY)$/

/** The environment of a child: the parent's minus mode/colour switches, colours off unless asked for. */
export function childEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) if (!SWITCHES.test(k)) env[k] = v
  env.NO_COLOR = '1'
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k]
    else env[k] = v
  }
  return env
}

/**
 * `fluxlab <args>` as a child process.
 * @example
 * const r = await fluxlab(['test', '--json'], { cwd })
 */
export function fluxlab(args: string[], opts: { cwd: string; env?: Record<string, string | undefined>; timeoutMs?: number }): Promise<CliResult> {
  const start = Date.now()
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: opts.cwd, env: childEnv(opts.env), stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    let output = ''
    child.stdout.on('data', (d: Buffer) => {
      stdout += d
      output += d
    })
    child.stderr.on('data', (d: Buffer) => {
      stderr += d
      output += d
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr, output, ms: Date.now() - start })
    })
  })
}

const dirs: string[] = []

/** A fresh temp directory (removed by {@link cleanup}). */
export function tempDir(prefix = 'flux-cli-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix))
  dirs.push(d)
  return d
}

export function cleanup(): void {
  if (process.env.CLI_KEEP) return
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
}

/** Copy a fixture directory to `<root>/<name>` (its forks too when asked). */
export function copyFixture(from: string, root: string, name: string, opts: { forks?: boolean } = {}): string {
  const to = join(root, name)
  const forks = join(from, 'forks')
  mkdirSync(join(to, '..'), { recursive: true })
  cpSync(from, to, { recursive: true, filter: (src) => opts.forks === true || !(src === forks || src.startsWith(`${forks}/`)) })
  return to
}

export const read = (file: string) => readFileSync(file, 'utf8')

/**
 * Edit one line of a JSONL file as an object. The line's digest goes with the edit (as in a fixture recorded before
 * digests, issue 28), so the check under test is the one that speaks; `keepDigest` keeps it (a digest_mismatch then).
 */
export function editJsonl(file: string, line: number, edit: (cell: Record<string, any>) => void, opts: { keepDigest?: boolean } = {}): void {
  const lines = read(file).split('\n')
  const cell = JSON.parse(lines[line - 1]) as Record<string, any>
  edit(cell)
  if (!opts.keepDigest) delete cell.digest
  lines[line - 1] = JSON.stringify(cell)
  writeFileSync(file, lines.join('\n'))
}

/** Replace text in a file (throws when it is not there, so a stale edit cannot pass silently). */
export function replaceIn(file: string, from: string | RegExp, to: string): void {
  const text = read(file)
  if (typeof from === 'string' ? !text.includes(from) : !from.test(text)) throw new Error(`${file} has no ${String(from)}`)
  writeFileSync(file, text.replace(from, to))
}

/** Rewrite trace.snap from the cells, as `FLUX_GOLDEN=snapshots` would (for fixtures edited on purpose). */
export function retrace(dir: string): void {
  const fx = readFixture(dir)
  writeFileSync(join(dir, 'trace.snap'), renderTrace(fx.manifest.name, fixtureSteps(fx)))
}

type ToolFn = (args: Record<string, unknown>, ctx: { toolCallId: string }) => Promise<unknown>

/** The OpenAI SDK in a manual tool loop with two in-process tools (on the tape through `lab.tools`). */
async function dragonsAgent(lab: Lab, baseURL: string): Promise<string> {
  const client = new OpenAI({ baseURL, apiKey: 'sk-test', maxRetries: 0 })
  const impl: Record<string, ToolFn> = { lookup_population: async () => 123124, can_have_dragons: async () => true }
  const tools = lab.tools(impl)
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Can the country of Crumpet have dragons? Answer with only YES or NO' }]
  for (let i = 0; i < 5; i++) {
    const r = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: false })
    const msg = r.choices[0].message
    if (!msg.tool_calls?.length) return msg.content ?? ''
    messages.push(msg)
    for (const call of msg.tool_calls) {
      if (call.type !== 'function') continue
      const out = await tools[call.function.name](JSON.parse(call.function.arguments), { toolCallId: call.id })
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(out) })
    }
  }
  throw new Error('no answer in 5 steps')
}

/**
 * Record the "dragons" scenario with the real engine (`scenario()` in this process, the OpenAI SDK against
 * the local provider server replaying real traffic): 3 model calls, 2 in-process tool calls.
 * @example
 * const dir = await recordDragons(root) // <root>/dragons
 */
export async function recordDragons(root: string, name = 'dragons'): Promise<string> {
  const server = await startProviderServer({ script: loadExchanges('openai-chat/test_tool_use_chain_of_two_calls.yaml') })
  const saved = { CI: process.env.CI, FLUX_GOLDEN: process.env.FLUX_GOLDEN, FLUX_OFFLINE: process.env.FLUX_OFFLINE }
  delete process.env.CI
  delete process.env.FLUX_GOLDEN
  delete process.env.FLUX_OFFLINE
  try {
    const s = await scenario(name, { dir: root })
    if (s.mode !== 'record') throw new Error(`expected to record ${name}, got ${s.mode}`)
    await s.run((lab) => dragonsAgent(lab, openaiBaseURL(server)))
  } finally {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    await server.close()
  }
  return join(root, name)
}
