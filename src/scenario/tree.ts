/**
 * One tape for the process tree (issue 26): a child process started inside a run (a test's, a scenario's, the file
 * scenario's) sends every request it makes to this process, and the run it was started in answers it through the
 * same admission and pipeline as its own requests (recorded, replayed, refused). Its own children inherit the way.
 *
 * The child gets the preload (`src/cli/preload.ts`) in `NODE_OPTIONS` and, in `FLUX_TREE` / `FLUX_TREE_TOKEN`, the
 * local socket of this process and a token naming the run and the command line it was started with. The socket is
 * opened at the first child of a run, one for the process, and does not keep the process alive.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Server } from 'node:net'
import { state, type RequestRoute } from '../context/state.js'
import { FluxError } from '../errors.js'
import { liveFetch, mayStartNode, readTreePorts, sentByChild, sweepDeadTrees, type Admission, type ChildEnv, type SyncChild } from '../sources/index.js'
import { builtFile, serveOverSocket, treeSocketPath } from '../sources/tree-wire.js'
import { isReplayKey } from '../context/replay-keys.js'
import { redactText } from '../secrets/redact.js'
import { baseUrlEnv, childBaseUrls, openBaseUrls, throughEndpoint } from './base-urls.js'

/** How a child's request is admitted into the run it was started in (the router's `admitTo`). */
export type AdmitChild = (run: RequestRoute, request: Request, origin: string) => Admission | undefined

interface Child {
  /** The run it was started in (a child still running after it ended finds it over). */
  run: RequestRoute
  admit: AdmitChild
  /** Its command line, redacted: what a divergence of one of its requests names. */
  command: string
  /** A process of its tree reached this one (the preload's hello, a request, a report, a base-URL request). */
  reached?: boolean
  /** It exited (a child still running when its run ends is not judged). */
  exited?: boolean
  /** Started by this process (not a process started elsewhere that was handed this tree's address: an app server under serve). */
  spawned?: boolean
}

interface Tree {
  path: string
  server: Server
  children: Map<string, Child>
  /** Where the processes of the tree note the ports their servers listen on (`sources/own-servers.ts`). */
  ports: { dir: string; close(): void }
}

// @note on globalThis: test files that share a worker (vitest reloads its modules for each) share one socket.
const KEY = Symbol.for('fluxlab.tree.v1')
const g = globalThis as { [KEY]?: Tree }

/** The run fails (the child gets nothing) when the build lacks the file a child needs. */
function unbuilt(run: RequestRoute, command: string, name: string): undefined {
  run.report?.(
    new FluxError('FLUX_BAD_CONFIG', {
      failed: `put the child process \`${redactText(command)}\` on the tape`,
      reason: `fluxlab's ${name} (dist/${name}) is missing, so the child's requests would go out unseen`,
      fix: 'Reinstall fluxlab (or run `npm run build` in a checkout of fluxlab)',
    }),
  )
  return undefined
}

/**
 * How a tree listens at its socket: `serveOverSocket`, or (`fluxlab serve`, issue 39) the listener serve opened before it
 * loaded the engine, which hands each word to what this gives it.
 */
type Listen = typeof serveOverSocket

/** The socket of this process's tree, opened on first use (at `at` when given: a process started before it opened). */
function open(at?: { path: string; takeOver?: Listen }): Tree {
  if (g[KEY]) return g[KEY]
  sweepDeadTrees(tmpdir())
  const path = at?.path ?? treeSocketPath(tmpdir(), `fluxlab-${process.pid}-${randomBytes(4).toString('hex')}`)
  const children = new Map<string, Child>()
  const server = (at?.takeOver ?? serveOverSocket)(
    path,
    async ({ token }, request, live) => {
      const child = children.get(token)
      if (!child || child.run.ended) return refusedLate(request, child?.command)
      const admitted = child.admit(child.run, throughEndpoint(request), child.command)
      // issue 39: when the tape goes live for it, the child sends it, through the layers beneath fluxlab in its process
      return admitted ? sentByChild(live, () => admitted.answer()) : undefined
    },
    {
      report({ token, report }) {
        // A model call the child refused as unroutable fails the run that started it, as it would in this process.
        const child = children.get(token)
        child?.run.report?.(
          Object.assign(new Error(`${report.message} (in the child process \`${child.command}\`)`), {
            name: report.code ? 'FluxError' : 'Error',
            code: report.code,
          }),
        )
      },
      contact(token) {
        const child = children.get(token)
        if (child) child.reached = true
      },
    },
  )
  const ports = readTreePorts()
  process.once('exit', () => {
    if (process.platform !== 'win32') rmSync(path, { force: true })
    ports.close()
  })
  return (g[KEY] = { path, server, children, ports })
}

/** A request from a child whose run is over: never sent, and said (the child's error names this). */
async function refusedLate(request: Request, command: string | undefined): Promise<Response> {
  const error = new FluxError('FLUX_NOT_IN_TEST', {
    failed: `send ${request.method} ${new URL(request.url).host}${new URL(request.url).pathname}`,
    reason: `the child process${command ? ` \`${command}\`` : ''} sent it after the run (or test) that started it ended, so it belongs to no tape`,
    fix: 'Wait for the child process to exit inside the test that starts it (await its exit, or kill it in afterEach).',
  })
  console.warn(error.message)
  return Response.error()
}

/**
 * What a child started now with `command` in `run` gets: the preload, and the socket and token its requests go to.
 * `undefined` (the child gets nothing, and the run fails with why) when the preload has not been built. `at`: the
 * socket and token a child already started was given (`fluxlab serve` starts the server before loading the engine), and
 * the listener already there.
 * @example
 * const env = childEnv(run, 'node child.mjs', admitTo)
 */
export function childEnv(run: RequestRoute, command: string, admit: AdmitChild, at?: { path: string; token: string; takeOver?: Listen }): ChildEnv | undefined {
  const preload = builtFile('preload.js')?.href
  if (!preload) return unbuilt(run, command, 'preload.js')
  const t = open(at)
  for (const [token, c] of t.children) if (c.run.ended) t.children.delete(token)
  const token = at?.token ?? randomBytes(16).toString('hex')
  const child: Child = { run, admit, command: redactText(command), spawned: !at }
  t.children.set(token, child)
  const hosts = run.config?.hosts ?? state.options.hosts
  // @note issue 26: under jest `process.env` here is the test file's copy, where a replay filled its placeholder keys;
  // a child's environment is made from the process's own, so they are handed over (never over a value it has).
  const placeholders = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => isReplayKey(e[1])))
  return {
    preload,
    defaults: placeholders,
    env: {
      FLUX_TREE: t.path,
      FLUX_TREE_TOKEN: token,
      FLUX_TREE_PORTS: t.ports.dir,
      ...(hosts && Object.keys(hosts).length ? { FLUX_TREE_HOSTS: JSON.stringify(hosts) } : {}),
      ...(childBaseUrls() ? baseUrlEnv(token) : {}),
    },
    exited: () => void (child.exited = true),
  }
}

/**
 * The children of `run` that exited without any process of their tree reaching it: they did not load the preload (a
 * `NODE_OPTIONS` replaced, a program that is not Node) nor came through a base-URL variable, so whatever they sent
 * went out unseen. Programs that start no Node process and send nothing fluxlab could see (`git`, `ls`…) are left
 * out. Each is named once: the run warns when it closes.
 * @example
 * for (const command of unreachedChildren(run)) log.diverge('unseen_child', 'child', …)
 */
export function unreachedChildren(run: RequestRoute): string[] {
  const out = unreachedSync.get(run) ?? []
  unreachedSync.delete(run)
  const tree = g[KEY]
  if (!tree) return out
  for (const [token, c] of tree.children) {
    if (c.run !== run || !c.exited) continue
    if (!c.reached && mayStartNode([c.command], true)) out.push(c.command)
    tree.children.delete(token)
  }
  return out
}

/**
 * Whether a child process this process started is running now: a server of the tree may still be starting (issue 38).
 * @example
 * if (childrenRunning()) await nothingListens(url)
 */
export function childrenRunning(): boolean {
  for (const c of g[KEY]?.children.values() ?? []) if (c.spawned && !c.exited) return true
  return false
}

/**
 * A run starts: with `childBaseUrls` on, the base-URL endpoint opens now (settled when it listens), so the children the
 * run starts find it; else nothing.
 * @example
 * await prepareTree()
 */
export function prepareTree(): Promise<void> | undefined {
  return childBaseUrls() ? openBaseUrls(answerBaseUrl) : undefined
}

/** A request of a child that came through a base-URL variable: to the run that started it, as the provider's. */
async function answerBaseUrl(token: string, request: Request): Promise<Response | undefined> {
  const child = g[KEY]?.children.get(token)
  if (child) child.reached = true
  if (!child || child.run.ended) return refusedLate(request, child?.command)
  const admitted = child.admit(child.run, request, `${child.command} (through a base-URL variable)`)
  return admitted ? admitted.answer() : liveFetch(request)
}

/** Synchronous children whose holder heard nothing from their tree, by run (`unreachedChildren`). */
const unreachedSync = new WeakMap<RequestRoute, string[]>()

/** What a holder (src/cli/holder.ts) reads: the run to continue, the child to start, where to listen and write back. */
export interface Holding {
  run: unknown
  argv: string[]
  shell: boolean | string
  /** The child's command line, redacted: what a divergence of one of its requests names. */
  command: string
  socket: string
  token: string
  preload: string
  /** Where the holder writes what its run did (`RunReturn`). */
  result: string
}

/**
 * A child started with `execSync`, `execFileSync` or `spawnSync` in `run`: this process blocks until it exits, so the
 * child runs under a holder process that continues the run (`handoff.ts`), and what it did is taken back after.
 * `undefined` for a route that cannot hand its run over (a refusal): the child then gets what `childEnv` gives.
 * @example
 * const holder = syncChild(run, 'npx tsx examples/a.ts')
 */
export function syncChild(run: RequestRoute, command: string): SyncChild | undefined {
  if (!run.handoff || !run.absorb) return undefined
  const holder = builtFile('holder.js')
  const preload = builtFile('preload.js')
  if (!holder || !preload) return unbuilt(run, command, holder ? 'preload.js' : 'holder.js')
  const dir = mkdtempSync(join(tmpdir(), 'fluxlab-sync-'))
  const result = join(dir, 'result.json')
  const shown = redactText(command)
  return {
    argv({ argv, shell }) {
      const holding: Holding = {
        run: run.handoff!(),
        argv,
        shell,
        command: shown,
        socket: treeSocketPath(dir, 'h'),
        token: randomBytes(16).toString('hex'),
        preload: preload.href,
        result,
      }
      writeFileSync(join(dir, 'holding.json'), JSON.stringify(holding))
      return [fileURLToPath(holder), join(dir, 'holding.json')]
    },
    done() {
      try {
        const back = JSON.parse(readFileSync(result, 'utf8')) as {
          counters?: unknown
          unreached?: boolean
          spawnError?: ReturnType<SyncChild['done']>['spawnError']
        }
        if (back.counters) run.absorb!(back as never)
        // judged with the run's other children when it closes
        if (back.unreached) unreachedSync.set(run, [...(unreachedSync.get(run) ?? []), shown])
        return back.spawnError ? { spawnError: back.spawnError } : {}
      } catch (e) {
        run.report?.(
          new FluxError('FLUX_INTERNAL', {
            failed: `take back the requests of the child process \`${shown}\``,
            reason: `its holder wrote no account of them (${(e as Error).message}): it was killed, or failed`,
            fix: 'Run the test again; if it fails the same way, report it with the output above.',
          }),
        )
        return {}
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
  }
}

/**
 * Close the tree's socket (the test file ended: jest's environment is torn down next). A child still running
 * then finds no one to send to, and its requests fail with that said.
 * @example
 * closeTree()
 */
export function closeTree(): void {
  const tree = g[KEY]
  if (!tree) return
  tree.server.close()
  tree.ports.close()
  if (process.platform !== 'win32') rmSync(tree.path, { force: true })
  g[KEY] = undefined
}
