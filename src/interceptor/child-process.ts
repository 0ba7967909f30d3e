/**
 * Child processes started while a run holds the interception: each one gets, in its environment, the preload that
 * puts its requests on the run's tape (`NODE_OPTIONS=--import`, inherited by its own children) and the socket and
 * token it sends them to (`./tree-wire.ts`). Every asynchronous way to start one (`spawn`, `exec`, `execFile`,
 * `fork`, and what is built on them: execa, cross-spawn, `npx`) ends in `ChildProcess.prototype.spawn` with the
 * environment already made into `KEY=value` pairs, which is where it is added. A process started while no run
 * holds the interception gets nothing: a test that starts no child pays nothing.
 */
import { ChildProcess } from 'node:child_process'

/** What a child of a run gets: the preload to import, and the variables that tell it where its tape is. */
export interface ChildEnv {
  /** A file URL (no quoting needed in NODE_OPTIONS). */
  preload: string
  env: Record<string, string>
}

/** Asked at each spawn while interception is held: the environment for a child started now with `command`, if any. */
export type ChildRouter = (command: string) => ChildEnv | undefined

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
 * `pairs` with `add` in: its variables replace the same names, and its preload joins NODE_OPTIONS (once: a copy of
 * our own preload already there, from the run of a parent process, is dropped).
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
  return [...kept, ...Object.entries(add.env).map(([k, v]) => `${k}=${v}`), `NODE_OPTIONS=${`${inherited} --import ${add.preload}`.trim()}`]
}

/**
 * Patch `ChildProcess.prototype.spawn` so each child started while `route()` answers gets its environment. Returns the undo.
 * @example
 * const undo = attachChildProcess(() => (st.refs > 0 ? st.router?.child : undefined))
 */
export function attachChildProcess(route: () => ChildRouter | undefined): () => void {
  const proto = ChildProcess.prototype as unknown as { spawn(this: ChildProcess, options: SpawnOptions): unknown }
  const original = proto.spawn
  const patched = function spawn(this: ChildProcess, options: SpawnOptions) {
    const add = options && Array.isArray(options.envPairs) ? route()?.(commandOf(options.args, options.file)) : undefined
    return original.call(this, add ? { ...options, envPairs: withChildEnv(options.envPairs!, add) } : options)
  }
  proto.spawn = patched
  return () => {
    // @note only our own patch is undone: one made over it since stays (and keeps calling ours, which then adds nothing).
    if (proto.spawn === patched) proto.spawn = original
  }
}
