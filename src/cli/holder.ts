/**
 * The holder of a child process started with `execSync`, `execFileSync` or `spawnSync` inside a run (issue 26): the
 * process that started it blocks until it exits, so it cannot answer the child's requests. The holder starts the
 * child in its place (same stdio, cwd, input and shell; its exit code or signal passed on), answers the child's
 * requests (and its children's) by continuing the run from where it stands (`src/scenario/handoff.ts`), and writes
 * back what that run did. A child that makes no request costs a start of this small file: the engine loads at the
 * first request.
 *
 * Run as `node holder.js <holding.json>` (src/scenario/tree.ts writes the file).
 */
import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { serveOverSocket } from '../sources/tree-wire.js'
import type { Holding } from '../scenario/tree.js'

const holding = JSON.parse(readFileSync(process.argv[2], 'utf8')) as Holding
type Continued = Awaited<ReturnType<typeof import('./holder-run.js').continueRun>>
let engine: Promise<Continued> | undefined
const load = (): Promise<Continued> => (engine ??= import('./holder-run.js').then((m) => m.continueRun(holding)))

// Whether any process of the child's tree reached this holder (the preload's hello, a request): else the run warns.
let reached = false
const server = serveOverSocket(
  holding.socket,
  async ({ token }, request, live) => (token === holding.token ? (await load()).answer(request, live) : undefined),
  {
    contact: (token) => void (reached ||= token === holding.token),
  },
)

const inherited = (process.env.NODE_OPTIONS ?? '').trim()
const env = { ...process.env, FLUX_TREE: holding.socket, FLUX_TREE_TOKEN: holding.token, NODE_OPTIONS: `${inherited} --import ${holding.preload}`.trim() }
const hosts = (holding.run as { settings?: { hosts?: Record<string, string> } }).settings?.hosts
if (hosts && Object.keys(hosts).length) Object.assign(env, { FLUX_TREE_HOSTS: JSON.stringify(hosts) })

const [file, ...args] = holding.argv
const child = spawn(file, args, { stdio: 'inherit', shell: holding.shell, env })
let spawnError: { message: string; code?: string; errno?: number; syscall?: string; path?: string } | undefined
child.on('error', (e: NodeJS.ErrnoException) => {
  spawnError = { message: e.message, code: e.code, errno: e.errno, syscall: e.syscall, path: e.path }
})
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal))

child.on('close', (code, signal) => {
  void (async () => {
    let back: object = {}
    try {
      back = engine ? await (await engine).finish() : {}
    } catch (e) {
      back = { fatal: { message: `fluxlab could not finish the run of \`${holding.command}\`: ${(e as Error).message}`, code: 'FLUX_INTERNAL' } }
    }
    writeFileSync(holding.result, JSON.stringify({ ...back, ...(spawnError ? { spawnError } : reached ? {} : { unreached: true }) }))
    server.close()
    if (signal) {
      process.removeAllListeners(signal)
      process.kill(process.pid, signal)
    } else process.exit(code ?? 1)
  })()
})
