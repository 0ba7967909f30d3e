/**
 * Every request source, in the order `acquireInterception` enables them; it disposes them in reverse. A source hands
 * fluxlab a request, a socket or a child process to decide about (`Admit`, `./source.ts`); the guards among them hand
 * over nothing and keep what fluxlab cannot see from going unsaid (`http2`) or seen wrong (`https-port`, `own-servers`).
 * Adding a source is a file and a line here (docs/adding-a-source.md).
 */
import { createRequire, syncBuiltinESMExports } from 'node:module'
import { attachChildProcess, attachSyncChildProcess } from './child-process.js'
import { guardHttp2 } from './http2.js'
import { guardHttpsPort } from './https-port.js'
import { attachOwnServers } from './own-servers.js'
import { attach, detach } from './share.js'
import type { Admit, RequestSource } from './source.js'
import { attachUndici, refreshUndici } from './undici.js'
import { attachWebSocket } from './websocket.js'
import { attachWorkers } from './worker.js'

/** A builtin module as its ES module bindings read it (the same object in every jest realm). */
const builtin = <T>(name: string): T => createRequire(import.meta.url)(name) as T

/**
 * A source that patches once, at the first `enable` that can (`patch` returns its undo, or `undefined` to be asked again
 * at the next: a global `WebSocket` may appear later), and picks up what changed since at every later one (`refresh`).
 * `builtins`: it patches a builtin module, whose ES module bindings are synced after each patch and undo.
 */
function patching(name: string, patch: (admit: Admit) => (() => unknown) | undefined, refresh?: () => unknown, builtins = false): RequestSource {
  let undo: (() => unknown) | undefined
  return {
    name,
    enable(admit) {
      if (undo) return void refresh?.()
      undo = patch(admit)
      if (undo && builtins) syncBuiltinESMExports()
    },
    dispose() {
      if (!undo) return
      undo()
      undo = undefined
      if (builtins) syncBuiltinESMExports()
    },
  }
}

/**
 * The sources of this process, new (each keeps its own undo): `live` sends a request past every interception.
 * @example
 * st.sources ??= sources(liveFetch)
 */
export function sources(live: (request: Request) => Promise<Response>): RequestSource[] {
  return [
    patching('undici', (admit) => attachUndici(admit, live), refreshUndici),
    patching('http2', () => guardHttp2().undo, undefined, true),
    // @note a global `WebSocket` may appear after the first acquire (a polyfill, or undici's assigned by the app).
    patching('websocket', attachWebSocket),
    patching('child', attachChildProcess),
    // issue 38: the ports this process's servers listen on (its own servers are not the network in whole-suite mode)
    patching('own-servers', () => attachOwnServers(process.env.FLUX_TREE_PORTS)),
    patching('child-sync', (admit) => attachSyncChildProcess(builtin('node:child_process'), admit), undefined, true),
    patching('worker', (admit) => attachWorkers(builtin('node:worker_threads'), admit), undefined, true),
    // fetch, node:http and XMLHttpRequest: fluxlab's listener first on whichever interceptor runs (`./share.ts`);
    // it reads the admit of the process-wide state, which every copy of the library shares.
    { name: 'interceptors', enable: attach, dispose: detach },
    // issue 38: over the interceptor's `https.request` patch, which read an agent-base agent's port as 80
    patching(
      'https-port',
      () => guardHttpsPort().undo,
      () => guardHttpsPort().patched && syncBuiltinESMExports(),
      true,
    ),
  ]
}
