import { syncBuiltinESMExports } from 'node:module'
import { bypass, http, passthrough } from 'msw'
import { setupServer } from 'msw/node'
import { attachUndici, refreshUndici, unrouted, type UndiciRouter } from './undici.js'

/**
 * Decides what to do with one request: a Response, or `undefined` to let it pass untouched.
 * Its optional hooks (`claims`, `isModelCall`, `report`) serve the undici routing (`./undici.ts`).
 */
export type Router = UndiciRouter

interface InterceptionState {
  server?: ReturnType<typeof setupServer>
  refs: number
  router?: Router
  detachUndici?: () => void
}

const KEY = Symbol.for('fluxlab.interception.v1')
const g = globalThis as Record<symbol, unknown>
// @note STYLE "Side effects": one patch per process even with two copies of the library loaded.
const st: InterceptionState = (g[KEY] as InterceptionState | undefined) ?? (g[KEY] = { refs: 0 } as InterceptionState)

/**
 * Start intercepting `fetch` and `node:http` in this process (ref-counted) and
 * route each request through `router`. Returns the matching release.
 * @example
 * const release = acquireInterception(async (req) => session?.handle(req))
 * try { await agent() } finally { release() }
 */
export function acquireInterception(router: Router): () => void {
  st.router = router
  if (st.refs++ === 0) {
    const server = setupServer(
      http.all('*', async ({ request }) => {
        const res = await st.router?.(request)
        return res ?? passthrough()
      }),
    )
    server.listen({ onUnhandledRequest: 'bypass' })
    // @note mswjs/interceptors#799 (0.41): the interceptor clones every mocked response for msw's
    // `response:mocked` event, and while that clone is unread, `response.body.cancel()` on the client's
    // copy never settles. The OpenAI and Anthropic SDKs cancel an error body before retrying a 429/5xx,
    // so a replayed or injected 429 hung them. Draining the clone in the background (never awaited, so
    // the client is not held up) lets the cancel settle.
    server.events.on('response:mocked', ({ response }) => {
      void response.arrayBuffer().catch(() => {})
    })
    // @note msw patches `http.request`/`http.get` on the CommonJS module object; ESM named imports
    // (`import { request } from 'node:http'`) keep the original until the builtin bindings are synced
    // (mswjs/interceptors#201, msw#2049). Without this such a request passes through, live, in replay.
    syncBuiltinESMExports()
    st.server = server
    st.detachUndici = attachUndici(() => st.router, liveFetch)
  } else refreshUndici()
  let released = false
  return () => {
    if (released) return
    released = true
    if (--st.refs === 0) {
      st.server?.close()
      st.server = undefined
      st.detachUndici?.()
      st.detachUndici = undefined
      syncBuiltinESMExports()
    }
  }
}

/**
 * Perform a request for real, past the interception (record mode).
 * @example
 * const res = await liveFetch(request)
 */
export function liveFetch(request: Request): Promise<Response> {
  return unrouted(() => fetch(bypass(request)))
}
