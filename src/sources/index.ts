import { createRequire, syncBuiltinESMExports } from 'node:module'
import { clearImmediate, setImmediate } from 'node:timers'
import { ClientRequestInterceptor } from '@mswjs/interceptors/ClientRequest'
import { FluxError, notice } from '../errors.js'
import { guardHttp2 } from './http2.js'
import { guardHttpsPort } from './https-port.js'
import type { Router } from './interception.js'
import { holdProcess, letGoProcess, processHold } from './process-hold.js'
import { attachChildProcess, attachSyncChildProcess } from './child-process.js'
import { attachOwnServers } from './own-servers.js'
import { attach, detach } from './share.js'
import { st } from './state.js'
import { attachUndici, refreshUndici, unrouted } from './undici.js'
import { attachWebSocket } from './websocket.js'
import { attachWorkers } from './worker.js'

export type { Admission, Router } from './interception.js'
export { GLOBAL_DISPATCHERS } from './undici.js'
export type { ChildEnv, SyncChild } from './child-process.js'
export { isPackageManager, mayStartNode } from './child-process.js'
export { isLoopback, isOwnServer, nothingListens, readTreePorts, sweepDeadTrees } from './own-servers.js'
export { refusedAsNetworkError } from './refused-network.js'

/**
 * The redirect mode a live copy of an intercepted request must be sent with, so the client meets a redirect as it
 * would without fluxlab: `manual` for `node:http` (it never follows one; the client or its library sees the 3xx),
 * else the request's own (`fetch`'s `redirect` option).
 * @example
 * new Request(target, { method, headers, body, redirect: redirectModeOf(request) })
 */
export function redirectModeOf(request: Request): RequestRedirect {
  return st.nodeHttp?.has(request) ? 'manual' : request.redirect
}

/**
 * Start intercepting `fetch`, `node:http` and `XMLHttpRequest` in this process (ref-counted) and
 * route each request through `router`. Returns the matching release: after the last one the patches are undone a
 * turn of the event loop later (`{ now: true }`: at once), and until then every request passes untouched.
 *
 * It shares one interception with the app's own msw or nock (`@mswjs/interceptors` keeps one running
 * interceptor per kind on `globalThis`): fluxlab's listener goes first in line; what the router admits as preempting
 * (`router.admit`, or `router.preempts` for a router without it) is fluxlab's alone, everything else is offered to
 * the app's mocks before it is answered. Calls made with
 * the npm `undici` package directly are routed to `router` too (`./undici.ts`).
 * @example
 * const release = acquireInterception(Object.assign(async (req: Request) => run?.handle(req), { preempts: isModelCall }))
 * try { await agent() } finally { release() }
 */
export function acquireInterception(router: Router): (options?: { now?: boolean }) => void {
  // Issue 24: an earlier jest test file's interception that is still in place is undone before this one patches.
  const stale = holdProcess(detachAll)
  if (stale) console.warn(notice(`could not undo the request interception an earlier test file left in this process: ${stale.message}`))
  if (st.idle) {
    clearImmediate(st.idle)
    st.idle = undefined
  }
  if (st.refs === 0 && !st.detachUndici) assertInterceptorsLine()
  st.router = router
  if (st.refs++ === 0 && !st.detachUndici) {
    st.detachUndici = attachUndici(() => (st.refs > 0 && processHold.holder?.realm === globalThis ? st.router : undefined), liveFetch)
    const http2 = guardHttp2()
    st.unguardHttp2 = http2.undo
    if (http2.patched) syncBuiltinESMExports()
  } else refreshUndici()
  // @note a global `WebSocket` may appear after the first acquire (a polyfill, or undici's assigned by the app).
  st.detachWebSocket ??= attachWebSocket(() => (st.refs > 0 ? st.router?.socket : undefined))
  const holds = () => st.refs > 0 && processHold.holder?.realm === globalThis
  st.detachChildren ??= attachChildProcess(() => (holds() ? st.router?.child : undefined))
  // issue 38: the ports this process's servers listen on (its own servers are not the network in whole-suite mode)
  st.detachOwnServers ??= attachOwnServers(process.env.FLUX_TREE_PORTS)
  if (!st.detachSyncChildren) {
    st.detachSyncChildren = attachSyncChildProcess(builtin('node:child_process'), () => (holds() ? st.router : undefined))
    st.detachWorkers = attachWorkers(builtin('node:worker_threads'), () => (holds() ? st.router?.child : undefined))
    syncBuiltinESMExports()
  }
  attach()
  // issue 38: over the interceptor's `https.request` patch, which read an agent-base agent's port as 80
  const port = guardHttpsPort()
  st.unguardHttpsPort = port.undo
  if (port.patched) syncBuiltinESMExports()
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

/** A builtin module as its ES module bindings read it (the same object in every jest realm). */
const builtin = <T>(name: string): T => createRequire(import.meta.url)(name) as T

/** Undo every patch of `acquireInterception` (the last holder released it, a turn ago). */
function detachAll(): void {
  st.unguardHttpsPort?.()
  const unguardedPort = st.unguardHttpsPort !== undefined
  st.unguardHttpsPort = undefined
  detach()
  st.detachUndici?.()
  st.detachUndici = undefined
  st.detachWebSocket?.()
  st.detachWebSocket = undefined
  st.detachChildren?.()
  st.detachChildren = undefined
  st.detachOwnServers?.()
  st.detachOwnServers = undefined
  st.detachSyncChildren?.()
  st.detachWorkers?.()
  const unpatchedSync = st.detachSyncChildren !== undefined
  st.detachSyncChildren = undefined
  st.detachWorkers = undefined
  if (st.unguardHttp2?.() || unpatchedSync || unguardedPort) syncBuiltinESMExports()
  st.unguardHttp2 = undefined
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
  if (typeof (ClientRequestInterceptor as unknown as { singleton?: unknown }).singleton !== 'function') return
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

/**
 * Run `answer` (the tape answering a request another process of the tree sent over its socket) so that a live send of
 * that request (`liveFetch`) is made by that process, with `send`, through its own layers beneath fluxlab (issue 39).
 * @example
 * serveOverSocket(path, (head, request, live) => sentByChild(live, () => run.handle(request)))
 */
export function sentByChild<T>(send: (request: Request) => Promise<Response>, answer: () => T): T {
  return st.sentBy ? st.sentBy.run({ send }, answer) : answer()
}

/**
 * Perform a request for real, past the interception (record mode): no listener of ours answers it,
 * and msw's bypass marker keeps the app's msw handlers from answering or warning about it.
 * @note issue 14: through the patched `fetch`, `bypass()` clones the request twice and the interceptor wraps and
 * clones it again, so its body went out as a stream teed three times, and the response came back through the
 * interceptor: most of what recording added before the first chunk. The `fetch` from before any interceptor
 * (kept when this module first loaded, as the setup files load it before the tests) sends it directly; nothing
 * can answer it there, so the marker is not needed. Without one, the patched `fetch` and the marker as before.
 * @note issue 24: a `fetch` request met our patch over another layer (a wrapper installed after fluxlab loaded, the
 * app's msw 3 `setupServer`, whose interceptors are not the ones ours share): its live copy goes through that layer, as
 * the request would have gone without fluxlab, and the app's mock there answers it. A model call carries msw's
 * bypass marker there, so the app's msw does not answer or refuse it, as the mocks beside ours never see it.
 * @example
 * const res = await liveFetch(request)
 */
export function liveFetch(request: Request): Promise<Response> {
  // @note issue 39: a request another process of the tree made is sent by that process, beneath fluxlab there (once).
  const child = st.sentBy?.getStore()
  const sender = child?.send
  if (sender) return ((child.send = undefined), sender(request))
  const pristine = st.pristineFetch
  const beneath = st.beneath?.getStore()
  // @note issue 14: `msw` is imported here, on the first such request, not when this module loads: it is only needed for
  // `bypass`, and loading it (with graphql, cookies, path-to-regexp) was the largest part of fluxlab's setup file cost per
  // test file. The continuation keeps the async context (`unrouted`, `st.live` are AsyncLocalStorage).
  const bypassed = (send: typeof fetch) => import('msw').then(({ bypass }) => send(bypass(request)))
  return unrouted(() =>
    st.live.run(true, () => {
      if (beneath) return beneath.preempted ? bypassed(beneath.fetch) : beneath.fetch(request)
      return pristine ? pristine(request) : bypassed(fetch)
    }),
  )
}
