/**
 * Sharing the running interceptors with the app's own msw or nock: our listener first in line on whichever runs,
 * followed when theirs is disposed or restarted, ours kept findable (and left applied once theirs sat on it).
 */
import { syncBuiltinESMExports } from 'node:module'
import { FETCH_SYMBOL, g, HTTP_SYMBOL, kinds, XHR_SYMBOL, type InterceptionState, type Listener, type Shared, type SharedEmitter } from './interception.js'
import { keepForTakeover } from './process-hold.js'
import { st } from './state.js'

/**
 * Put our listeners first on the running interceptor of each kind: the app's (its msw or nock started
 * first), else ours. Called at every acquire, so a mocking library started, stopped or restarted since
 * the last one is followed.
 */
export function attach(): void {
  let patched = false
  for (const Kind of kinds()) {
    const running = runningOrOwn(Kind, () => (patched = true))
    const before = st.attached.find((i) => i.symbol === Kind.symbol)
    if (before && before !== running) unlisten(before)
    if (!running) continue
    const listener = Kind.symbol === HTTP_SYMBOL ? st.onHttpRequest : Kind.symbol === FETCH_SYMBOL ? (st.onFetchRequest ?? st.onRequest) : st.onRequest
    if (running.emitter.listeners('request')[0] !== listener) {
      unlisten(running)
      running.emitter.prependListener('request', listener)
    }
    drainIfShared(running)
    if (!st.attached.includes(running)) st.attached.push(running)
    if (!st.owned.includes(running)) followDispose(running)
  }
  // @note msw patches `http.request`/`http.get` on the CommonJS module object; ESM named imports
  // (`import { request } from 'node:http'`) keep the original until the builtin bindings are synced
  // (mswjs/interceptors#201, msw#2049). Without this such a request passes through, live, in replay.
  if (patched) syncBuiltinESMExports()
}

/** The interceptor of `Kind` that is running in this process, applying ours when none is. */
function runningOrOwn(Kind: { new (): Shared; symbol: symbol }, onPatch: () => void): Shared | undefined {
  const running = g[Kind.symbol] as Shared | undefined
  if (running) return running
  // @note issue 14: building the interceptor only to find the API missing cost a little on every run.
  if (Kind.symbol === XHR_SYMBOL && typeof (globalThis as { XMLHttpRequest?: unknown }).XMLHttpRequest === 'undefined') return undefined
  const wrapped = globalThis.fetch
  const mine = new Kind()
  mine.apply()
  if (g[Kind.symbol] !== mine) return undefined // this environment has no such API (XMLHttpRequest in Node)
  onPatch()
  st.owned.push(mine)
  if (Kind.symbol === FETCH_SYMBOL && wrapped !== st.pristineFetch) st.beneathFetch = wrapped
  anchor(mine)
  return mine
}

/**
 * Keep our running interceptor findable, and note when another library's listeners sit on it.
 * @note `Interceptor.dispose()` clears the global symbol even on an instance that never owned it, and nock
 * does exactly that when it is imported (`back.setMode` → `recorder.restore()` disposes its unapplied
 * interceptors). With the symbol gone, the next library patches `http`/`fetch` a second time over ours,
 * and two nested `http.get` patches fail every request. The same instance under the symbol on the global
 * object's own prototype survives the delete: lookups still find ours, and a library that really applies
 * one later (after ours is disposed) shadows it with its own property.
 */
function anchor(own: Shared): void {
  Object.defineProperty(Object.getPrototypeOf(globalThis), own.symbol, { value: own, configurable: true, writable: true })
  // Issue 24: the next jest test file may have to dispose it.
  keepForTakeover(own)
  const add = (own.emitter as SharedEmitter & { addListener(event: string, listener: Listener): unknown }).addListener.bind(own.emitter)
  ;(own.emitter as SharedEmitter & { addListener(event: string, listener: Listener): unknown }).addListener = (event, listener) => {
    st.shared.add(own)
    const out = add(event, listener)
    if (event === 'response' && st.attached.includes(own)) drainIfShared(own)
    return out
  }
}

/** Our listeners off every interceptor; ours disposed unless another library has used them. */
export function detach(): void {
  for (const i of st.attached.splice(0)) unlisten(i)
  let restored = false
  for (const own of st.owned.splice(0)) {
    // @note once another library's interceptor has sat on ours it keeps sending its listeners to ours (its
    // `on` stays bound to the instance it found running, even after it stops and starts again): disposing
    // ours would end its mocks for good. Ours then stays applied, idle when no listener is left.
    if (st.shared.has(own) || own.readyState !== 'APPLIED') {
      if (own.readyState === 'APPLIED') st.owned.push(own)
      continue
    }
    own.dispose()
    if (own.symbol === FETCH_SYMBOL) st.beneathFetch = undefined
    const proto = Object.getPrototypeOf(globalThis) as Record<symbol, unknown>
    if (proto[own.symbol] === own) delete proto[own.symbol]
    restored = true
  }
  if (restored) syncBuiltinESMExports()
}

/**
 * Listen to `response` only while another library does: the fetch interceptor clones every response for that
 * event only when someone listens, and a clone nobody reads is what our listener drains (issue 14: a replayed
 * stream was teed and read twice for nothing).
 */
function drainIfShared(i: Shared): void {
  const theirs = i.emitter.listeners('response').filter((l) => l !== st.onResponse).length
  const ours = i.emitter.listeners('response').includes(st.onResponse)
  if (theirs > 0 && !ours) i.emitter.prependListener('response', st.onResponse)
  else if (theirs === 0 && ours) i.emitter.removeListener('response', st.onResponse)
}

function unlisten(i: Shared): void {
  i.emitter.removeListener('request', st.onRequest)
  i.emitter.removeListener('request', st.onHttpRequest)
  if (st.onFetchRequest) i.emitter.removeListener('request', st.onFetchRequest)
  i.emitter.removeListener('response', st.onResponse)
  const at = st.attached.indexOf(i)
  if (at >= 0) st.attached.splice(at, 1)
}

/**
 * Another library's interceptor we sit on: when it is disposed (the app's `server.close()`), its patches
 * go and our listeners with them; while fluxlab is acquired, attach again at once (ours, then).
 */
function followDispose(running: Shared): void {
  const emitter = running.emitter as SharedEmitter & { [FOLLOWED]?: true }
  if (emitter[FOLLOWED]) return
  emitter[FOLLOWED] = true
  const removeAll = emitter.removeAllListeners.bind(emitter)
  emitter.removeAllListeners = (event) => {
    const out = removeAll(event)
    const listeners = emitter.listeners('request')
    const ours = [st.onRequest, st.onHttpRequest, st.onFetchRequest]
    if (st.attached.includes(running) && !listeners.some((l) => ours.includes(l as InterceptionState['onRequest']))) {
      unlisten(running)
      if (st.refs > 0) attach()
    }
    return out
  }
}
const FOLLOWED = Symbol.for('fluxlab.interception.followed')
