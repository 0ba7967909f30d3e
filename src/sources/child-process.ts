/**
 * Child processes started while a run holds the interception: each one gets, in its environment, the preload that
 * puts its requests on the run's tape (`NODE_OPTIONS=--import`, inherited by its own children) and the socket and
 * token it sends them to (`./tree-wire.ts`). Every asynchronous way to start one (`spawn`, `exec`, `execFile`,
 * `fork`, and what is built on them: execa, cross-spawn, `npx`) ends in `ChildProcess.prototype.spawn` with the
 * environment already made into `KEY=value` pairs, which is where it is added. A process started while no run
 * holds the interception gets nothing: a test that starts no child pays nothing.
 */
import { ChildProcess } from 'node:child_process'
import type { Admit, ChildEnv, SyncChild } from './source.js'

interface SpawnOptions {
  file?: string
  args?: string[]
  envPairs?: string[]
}

/** The command line a child was started with, as a person would type it: `node child.mjs`; a shell's `-c` script. */
export function commandOf(args: readonly string[] | undefined, file = ''): string {
  const argv = args?.length ? args : [file]
  const c = argv.indexOf('-c')
  return /(^|[\\/])(ba|z|da)?sh(\.exe)?$|cmd\.exe$/i.test(argv[0] ?? '') && c > 0 && argv[c + 1] !== undefined ? argv[c + 1] : argv.join(' ')
}

/**
 * `pairs` with `add` in: its variables replace the same names, its defaults fill names `pairs` lacks, and its preload
 * joins NODE_OPTIONS (once: a copy of our own preload already there, from the run of a parent process, is dropped).
 * @example
 * withChildEnv(['PATH=/bin'], { preload: 'file:///…/preload.js', env: { FLUX_TREE: '/tmp/x.sock' } })
 */
export function withChildEnv(pairs: readonly string[], add: ChildEnv): string[] {
  const names = new Set([...Object.keys(add.env), 'NODE_OPTIONS'])
  let options = ''
  const kept = pairs.filter((p) => {
    const name = p.slice(0, p.indexOf('='))
    if (name === 'NODE_OPTIONS') options = p.slice(name.length + 1)
    return !names.has(name)
  })
  const inherited = options.replace(/--import[= ]\S*preload\.js/g, '').trim()
  const has = new Set(kept.map((p) => p.slice(0, p.indexOf('='))))
  const defaults = Object.entries(add.defaults ?? {}).filter(([k]) => !has.has(k) && !names.has(k))
  return [
    ...kept,
    ...defaults.map(([k, v]) => `${k}=${v}`),
    ...Object.entries(add.env).map(([k, v]) => `${k}=${v}`),
    `NODE_OPTIONS=${`${inherited} --import ${add.preload}`.trim()}`,
  ]
}

/**
 * Patch `ChildProcess.prototype.spawn` so each child started while a run admits it (`Admission.child`) gets its
 * environment. Returns the undo.
 * @example
 * const undo = attachChildProcess(admit)
 */
export function attachChildProcess(admit: Admit): () => void {
  const proto = ChildProcess.prototype as unknown as { spawn(this: ChildProcess, options: SpawnOptions): unknown }
  const original = proto.spawn
  const patched = function spawn(this: ChildProcess, options: SpawnOptions) {
    const add =
      options && Array.isArray(options.envPairs) ? admit(undefined, { via: 'child', process: commandOf(options.args, options.file) })?.child?.() : undefined
    const out = original.call(this, add ? { ...options, envPairs: withChildEnv(options.envPairs!, add) } : options)
    if (add?.exited) this.once('exit', add.exited)
    return out
  }
  proto.spawn = patched
  return () => {
    // @note only our own patch is undone: one made over it since stays (and keeps calling ours, which then adds nothing).
    if (proto.spawn === patched) proto.spawn = original
  }
}

type Sync = (...args: unknown[]) => unknown
interface SyncOptions {
  env?: NodeJS.ProcessEnv
  shell?: boolean | string
  argv0?: string
}

/**
 * Programs that never start a Node process themselves (nor a provider request fluxlab could see): a synchronous child
 * made of them needs no holder, and one that never reached the run is not warned about.
 */
const NOT_NODE = new Set(
  [
    'git ls cat echo printf grep egrep fgrep rg sed awk which whereis uname whoami id date pwd mkdir',
    'rmdir rm cp mv ln touch chmod chown tar gzip gunzip zip unzip head tail wc sort uniq cut tr tee diff',
    'cmp stat du df true false sleep test hostname ps kill lsof file basename dirname realpath readlink',
    'mktemp sha256sum shasum md5sum',
  ]
    .join(' ')
    .split(' '),
)

/**
 * Whether a child may start Node: anything but commands of programs in `NOT_NODE`. A shell command is a list of simple
 * commands (split at `;`, `&&`, `||`, `|`, `&`, new lines); it may start Node when any of them may, and when it
 * substitutes a command (`` ` ``, `$(`). Variable assignments before a program and redirects are not programs.
 * Whatever can run another program (`env`, `xargs`, `find -exec`, an interpreter) is not in `NOT_NODE`.
 * @example
 * mayStartNode(['git status'], true) // false
 * mayStartNode(['rm -rf out && mkdir out'], true) // false
 * mayStartNode(['npx tsx examples/a.ts'], true) // true
 */
export function mayStartNode(argv: readonly string[], shell: boolean | string): boolean {
  const programOf = (word: string) => word.replace(/^.*[\\/]/, '').replace(/\.exe$/i, '')
  if (!shell) return !NOT_NODE.has(programOf(argv[0] ?? ''))
  const line = argv.join(' ')
  if (/`|\$\(/.test(line)) return true
  return line
    .replace(/\d*[<>]&?\s*[^\s;|&]+/g, ' ')
    .split(/\|\||&&|[;|&\n]/)
    .some((part) => {
      const words = part
        .trim()
        .split(/\s+/)
        .filter((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w))
      return words.length > 0 && !NOT_NODE.has(programOf(words[0]))
    })
}

/** The entry scripts of package managers: npm, npx, pnpm, yarn (classic, and berry's `.yarn/releases/yarn-*.cjs`), corepack. */
const PACKAGE_MANAGER = [
  /^(npm|npx|npm-cli\.js|npx-cli\.js|pnpm|pnpx|pnpm\.c?js|yarn|yarnpkg|yarn\.c?js|corepack)$/,
  /[\\/]node_modules[\\/](npm|pnpm|yarn|corepack)[\\/](bin|dist)[\\/][^\\/]+$/,
  /[\\/]\.yarn[\\/]releases[\\/]yarn-[^\\/]+\.c?js$/,
]

/**
 * Whether this Node process is a package manager's own (`npx -y server` starting an MCP server, `npm run dev`), from
 * its entry script (`process.argv[1]`, as the shell called it or behind a symlink): its registry traffic is no call
 * of the agent, and the preload leaves it alone, as without fluxlab; the programs it starts are on the tape.
 * @note issue 38: npm under the preload sent its registry request through the interception, which saw an `https:`
 * request of an agent-base agent at port 80 (`defaultPort` looks for `node:https` on the stack), and refused it
 * offline, so npm never fell back to its cache and the server it was to start never came up.
 * @example
 * isPackageManager('/usr/lib/node_modules/npm/bin/npx-cli.js') // true
 * isPackageManager('/repo/node_modules/.bin/tsx') // false
 */
export function isPackageManager(entry: string | undefined, real: (path: string) => string = (path) => path): boolean {
  if (!entry) return false
  const matches = (path: string) => PACKAGE_MANAGER.some((re) => re.test(path.replace(/^.*[\\/]/, '')) || re.test(path))
  if (matches(entry)) return true
  try {
    return matches(real(entry))
  } catch {
    return false
  }
}

/** `NODE_OPTIONS` and the tree's variables out of `env`: a holder itself is not on any tape. */
function bare(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env }
  for (const k of ['FLUX_TREE', 'FLUX_TREE_TOKEN', 'FLUX_TREE_HOSTS']) delete out[k]
  if (out.NODE_OPTIONS) out.NODE_OPTIONS = out.NODE_OPTIONS.replace(/--import[= ]\S*preload\.js/g, '').trim()
  return out
}

/** Run the child under its holder: the same stdio, cwd and input, the holder's own environment bare of the tree. */
function held(
  holder: SyncChild,
  command: string,
  argv: string[],
  shell: boolean | string,
  options: SyncOptions | undefined,
  ways: { holder(file: string, args: string[], options: SyncOptions): unknown },
): unknown {
  const own: SyncOptions = { ...options, shell: false, env: bare(options?.env ?? process.env) }
  delete own.argv0
  let failed: ReturnType<SyncChild['done']>['spawnError']
  let done = false
  const finish = () => {
    if (!done) (done = true), (failed = holder.done().spawnError)
  }
  try {
    const out = ways.holder(process.execPath, holder.argv({ argv, shell }), own)
    finish()
    // spawnSync reports a child that could not start in its result; execFileSync throws it.
    if (failed && typeof out === 'object' && out !== null && 'status' in out) return { ...out, status: null, error: spawnFailure(failed) }
    if (failed) throw spawnFailure(failed)
    return out
  } catch (e) {
    finish()
    if (failed) throw spawnFailure(failed)
    // The error names the child's command, not the holder's.
    const err = e as Error
    if (typeof err?.message === 'string') err.message = err.message.replace(/^Command failed: .*$/m, `Command failed: ${command}`)
    throw err
  }
}

/** A spawn error as `spawnSync` reports it, rebuilt from the holder's account. */
function spawnFailure(e: NonNullable<ReturnType<SyncChild['done']>['spawnError']>): Error {
  return Object.assign(new Error(e.message), { code: e.code, errno: e.errno, syscall: e.syscall, path: e.path })
}

/**
 * Patch `execSync`, `execFileSync` and `spawnSync` of `node:child_process` (their ES module bindings too) so a child
 * started with them while a run admits it is on the tape: under a holder process (`Admission.holder`), or with the
 * environment only (`Admission.child`). Returns the undo.
 * @note they cannot be patched where `ChildProcess.prototype.spawn` is: the synchronous spawn is internal to Node.
 * @example
 * const undo = attachSyncChildProcess(cp, admit)
 */
export function attachSyncChildProcess(cp: Record<'execSync' | 'execFileSync' | 'spawnSync', Sync>, admit: Admit): () => void {
  const original = { execSync: cp.execSync, execFileSync: cp.execFileSync, spawnSync: cp.spawnSync }
  /** `(file, args?, options?)` as the functions take it. */
  const split = (args: unknown, options: unknown): [string[], SyncOptions | undefined] =>
    Array.isArray(args) ? [args.map(String), options as SyncOptions] : [[], args as SyncOptions]
  /**
   * Start the child with `argv` under its route: `plain()` when it has none; else under the holder (`holder` starts
   * `node <holder args>`), or `withEnv` with the environment added.
   */
  interface Ways {
    plain(): unknown
    holder(file: string, args: string[], options: SyncOptions): unknown
    withEnv(options: SyncOptions): unknown
  }
  const under = (argv: string[], shell: boolean | string, options: SyncOptions | undefined, ways: Ways): unknown => {
    const command = shell ? argv.join(' ') : commandOf(argv)
    const admitted = admit(undefined, { via: 'child', process: command })
    // @note a run that holds the tape here never gives a synchronous child the environment alone: its requests
    // would come to this process, blocked until the child exits.
    if (admitted?.holder) {
      // A holder costs a Node start (tens of ms); a command that can start no Node process needs none.
      if (!mayStartNode(argv, shell)) return ways.plain()
      const holder = admitted.holder()
      return holder ? held(holder, command, argv, shell, options, ways) : ways.plain()
    }
    const env = admitted?.child?.()
    if (!env) return ways.plain()
    const base = options?.env ?? process.env
    const pairs = withChildEnv(
      Object.entries(base).flatMap(([k, v]) => (v === undefined ? [] : [`${k}=${v}`])),
      env,
    )
    return ways.withEnv({ ...options, env: Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)])) })
  }
  const patched = {
    spawnSync(this: unknown, file: unknown, args?: unknown, options?: unknown) {
      const [a, o] = split(args, options)
      return under([String(file), ...a], o?.shell ?? false, o, {
        plain: () => original.spawnSync.call(this, file, args, options),
        holder: (f, x, y) => original.spawnSync(f, x, y),
        withEnv: (y) => original.spawnSync(file, a, y),
      })
    },
    execFileSync(this: unknown, file: unknown, args?: unknown, options?: unknown) {
      const [a, o] = split(args, options)
      return under([String(file), ...a], o?.shell ?? false, o, {
        plain: () => original.execFileSync.call(this, file, args, options),
        holder: (f, x, y) => original.execFileSync(f, x, y),
        withEnv: (y) => original.execFileSync(file, a, y),
      })
    },
    execSync(this: unknown, command: unknown, options?: unknown) {
      const o = options as SyncOptions | undefined
      // A shell command: the holder starts it in the same shell.
      return under([String(command)], o?.shell ?? true, o, {
        plain: () => original.execSync.call(this, command, options),
        holder: (f, x, y) => original.execFileSync(f, x, y),
        withEnv: (y) => original.execSync(command, y),
      })
    },
  }
  Object.assign(cp, patched)
  return () => {
    for (const name of ['execSync', 'execFileSync', 'spawnSync'] as const) if (cp[name] === patched[name]) cp[name] = original[name]
  }
}
