import { clearImmediate, setImmediate } from 'node:timers'
import { FluxError, notice } from '../errors.js'
import { interceptorClasses } from './interceptors.js'
import { holdProcess, letGoProcess, processHold } from './process-hold.js'
import { sources } from './registry.js'
import type { Admit } from './source.js'
import { liveFetch } from './live.js'
import { st } from './state.js'

export type { Admission, Admit, ChildEnv, Origin, SocketConnection, SyncChild } from './source.js'
export { loadInterceptors } from './interceptors.js'
export { liveFetch, redirectModeOf, sentByChild, upstreamed } from './live.js'
export { GLOBAL_DISPATCHERS } from './undici.js'
export { isPackageManager, mayStartNode } from './child-process.js'
export { isLoopback, isOwnServer, nothingListens, readTreePorts, sweepDeadTrees } from './own-servers.js'
export { refusedAsNetworkError } from './refused-network.js'

/**
 * Start every request source of this process (`./registry.ts`: fetch, `node:http` and `XMLHttpRequest`, the npm
 * `undici` package's dispatchers, the global `WebSocket`, child processes and workers; ref-counted) and hand each
 * request, socket or child they see to `admit`. Returns the matching release: after the last one the sources are
 * disposed, in reverse, a turn of the event loop later (`{ now: true }`: at once), and until then every request
 * passes untouched.
 *
 * It shares one interception with the app's own msw or nock (`@mswjs/interceptors` keeps one running
 * interceptor per kind on `globalThis`): fluxlab's listener goes first in line; what `admit` admits as preempting is
 * fluxlab's alone, everything else is offered to the app's mocks before it is answered.
 * @example
 * const release = acquireInterception((request) => ({ preempts: true, answer: async () => new Response('hi') }))
 * try { await agent() } finally { release() }
 */
export function acquireInterception(admit: Admit): (options?: { now?: boolean }) => void {
  // Issue 24: an earlier jest test file's interception that is still in place is undone before this one patches.
  const stale = holdProcess(detachAll)
  if (stale) console.warn(notice(`could not undo the request interception an earlier test file left in this process: ${stale.message}`))
  if (st.idle) {
    clearImmediate(st.idle)
    st.idle = undefined
  }
  if (st.refs === 0 && !st.sources) assertInterceptorsLine()
  st.admit = admit
  st.refs++
  st.sources ??= sources(liveFetch)
  for (const source of st.sources) source.enable(held)
  let released = false
  return ({ now = false } = {}) => {
    if (released) return
    released = true
    if (--st.refs > 0) return
    if (now) return detachAll()
    // @note issue 14: the patches stay until the turn of the event loop after the last release, so back-to-back
    // runs (the tests of a file, one after another) reuse them rather than undo and redo every patch per run (an
    // eighth of a replayed run's time). Meanwhile nothing is routed: every listener of ours lets a request pass
    // untouched while no one holds the interception. `node:timers`' own setImmediate: fake timers never hold it.
    const idle = setImmediate(() => {
      if (st.idle !== idle) return
      try {
        st.idle = undefined
        if (st.refs === 0) detachAll()
      } catch (e) {
        // No run holds the interception to fail with it, and a throw here would end the process: said, not thrown.
        console.warn(notice(`could not undo the request interception after the last run: ${(e as Error).message}`))
      }
    })
    idle.unref()
    st.idle = idle
  }
}

/**
 * What the sources ask: the holder's `admit`, while this realm holds the interception (issue 24: a source left behind by
 * a test file that is over asks nothing).
 */
const held: Admit = (request, origin) => (st.refs > 0 && processHold.holder?.realm === globalThis ? st.admit?.(request, origin) : undefined)

/** Dispose every source, in reverse (the last holder released the interception, a turn ago). */
function detachAll(): void {
  for (const source of st.sources?.reverse() ?? []) source.dispose()
  st.sources = undefined
  letGoProcess()
}

/**
 * fluxlab is written against the @mswjs/interceptors 0.41 line its package.json pins. npm `overrides` can put
 * msw 3's line (0.45) under it instead, whose interceptors are singletons on another registry with another
 * emitter: every test then failed inside the interceptor ("Failed to replace a global value at "WebSocket":
 * already replaced"). Refuse before anything is patched, naming the override; msw itself may be 3.x (only
 * `bypass` comes from it).
 */
function assertInterceptorsLine(): void {
  if (typeof (interceptorClasses().ClientRequestInterceptor as unknown as { singleton?: unknown }).singleton !== 'function') return
  throw new FluxError('FLUX_BAD_CONFIG', {
    failed: 'start intercepting requests',
    reason:
      "the @mswjs/interceptors that fluxlab resolves is a newer line than the 0.41 it is built for (its interceptors have the `singleton` API of msw 3's " +
      '0.45); an npm `overrides` entry for @mswjs/interceptors usually put it there',
    fix:
      'Remove that override (forcing fluxlab\'s msw to 3.x is fine: `"overrides": { "fluxlab": { "msw": "3.0.5" } }`), then run `npm install` (see ' +
      'docs/compatibility.md#msw-2-and-msw-3)',
  })
}
