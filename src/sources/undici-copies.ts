/**
 * The copies of the npm `undici` package loaded through Node's module cache, each found once and its
 * `DispatcherBase.prototype.dispatch` routed (`new Agent()`, `Pool`, `Client`, and a `ProxyAgent`'s inner agent all
 * inherit it), so their requests are answered before any connection opens. Used by ./undici.ts at every acquire.
 * @note A copy loaded outside Node's module cache (jest's module registry) is not found here; its
 * requests are still taken over on `undici:request:create`.
 */
import { createRequire, Module } from 'node:module'
import { join } from 'node:path'
import type { DispatchOptions, UndiciHandler } from './undici-wire.js'

type Dispatch = (opts: DispatchOptions, handler: UndiciHandler) => boolean

/** A patched `DispatcherBase.prototype` of one loaded copy. */
interface Patch {
  proto: { dispatch: Dispatch }
  original: Dispatch
  patched: Dispatch
}

/** What is kept between looks (in the realm's undici state, shared by every copy of fluxlab). */
export interface CopiesState {
  patches: Map<string, Patch>
  /** Node's module cache, where loaded copies of undici are looked for. */
  moduleCache?: NodeJS.Require['cache']
  /** How far the cache was looked through: its first `count` files, the last of them `last`; `whole`: to its end. */
  scanned?: { count: number; last?: string; whole: boolean }
}

const DISPATCHER_BASE = /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]dispatcher-base\.js$/

/**
 * Route every loaded copy not routed yet: `route(original, opts, handler)` is each patched `dispatch`.
 * @example
 * patchLoadedCopies(u, (send, opts, handler) => dispatchRouted(send, opts, handler))
 */
export function patchLoadedCopies(s: CopiesState, route: (send: Dispatch, opts: DispatchOptions, handler: UndiciHandler) => boolean): void {
  // @note issue 28: this runs at every run, and reading the keys of a suite's cache (hundreds of files) cost about 20 µs
  // a run. Nothing is read while no file was loaded since a look that went to the cache's end.
  if (!loadedSince() && s.scanned?.whole) return
  // @note every `require` shares one cache (`Module._cache`): found once, not built per run.
  const cache = (s.moduleCache ??= createRequire(join(process.cwd(), 'noop.js')).cache)
  const files = Object.keys(cache)
  // The cache only grows at its end (a module is added as it starts loading), so only files added since the last look
  // are read; a removal before that point moves the last file looked at, and then the whole cache is read again.
  const seen = s.scanned
  let from = seen && seen.count <= files.length && files[seen.count - 1] === seen.last ? seen.count : 0
  let upTo = files.length
  for (; from < files.length; from++) {
    const file = files[from]
    if (!file.endsWith('dispatcher-base.js') || s.patches.has(file) || !DISPATCHER_BASE.test(file)) continue
    const proto = (cache[file]?.exports as { prototype?: { dispatch?: unknown } } | undefined)?.prototype
    // a copy still loading (its module is in the cache before its exports are): looked at again next time
    if (!proto || typeof proto.dispatch !== 'function') {
      upTo = Math.min(upTo, from)
      continue
    }
    const original = proto.dispatch as Dispatch
    const patched: Dispatch = function (this: unknown, opts, handler) {
      return route((o, h) => original.call(this, o, h), opts, handler)
    }
    proto.dispatch = patched
    s.patches.set(file, { proto: proto as Patch['proto'], original, patched })
  }
  s.scanned = { count: upTo, last: files[upTo - 1], whole: upTo === files.length }
}

/**
 * Undo every patch of `s` still in place, and forget how far the cache was read.
 * @example
 * unpatchCopies(u)
 */
export function unpatchCopies(s: CopiesState): void {
  for (const patch of s.patches.values()) if (patch.proto.dispatch === patch.patched) patch.proto.dispatch = patch.original
  s.patches.clear()
  s.scanned = undefined
}

type Load = (this: unknown, filename: string) => unknown
const loader = (Module as unknown as { prototype: { load: Load } }).prototype
let watch: { hook: Load; original: Load } | undefined
let loaded = true

/**
 * Note each file Node's CommonJS loader loads (`Module.prototype.load` runs once for every file it puts in the cache:
 * a `require`, and an `import` of a CommonJS file) until the returned undo. Only a flag is raised.
 * @example
 * const unwatch = watchLoads()
 */
export function watchLoads(): () => void {
  if (!watch) {
    const original = loader.load
    const hook: Load = function (this: unknown, filename) {
      loaded = true
      try {
        return original.call(this, filename)
      } finally {
        loaded = true
      }
    }
    loader.load = hook
    watch = { hook, original }
    loaded = true
  }
  return () => {
    if (watch && loader.load === watch.hook) loader.load = watch.original
    watch = undefined
  }
}

/**
 * Whether a file may have been loaded since the last call: always when loads are not watched, or when another
 * wrapper replaced ours (it may not call it).
 */
function loadedSince(): boolean {
  if (!watch || loader.load !== watch.hook) return true
  const was = loaded
  loaded = false
  return was
}
