/**
 * The port of an `https.request(options)` that names none, through an agent-base agent (`@npmcli/agent` in npm,
 * `https-proxy-agent`, `proxy-agent`): agent-base's `defaultPort` says 443 only when `node:https` is on the call stack
 * (it looks), and `@mswjs/interceptors` reads it from inside its own `https.request` patch, where it is not. The
 * request was then seen, keyed and, on `pass`, sent to port 80 (issue 38: npm's registry request under the preload).
 * This wrapper, over the interceptor's patch, names the port the call would have had without interception.
 */
import { createRequire } from 'node:module'
import { realmState } from './process-hold.js'

type RequestFn = (this: unknown, ...args: unknown[]) => unknown
type Https = Record<'request' | 'get', RequestFn>

/** The CommonJS `node:https` object, the one the interceptors patch. */
const https = createRequire(import.meta.url)('node:https') as Https
const KEY = Symbol.for('fluxlab.https-port.v1')
const st = realmState<{ wrappers: Map<RequestFn, RequestFn> }>(KEY, () => ({ wrappers: new Map() }))

/** The arguments with `port: 443` added when they are `(options[, cb])` naming no port and the agent claims 80. */
function withPort(args: unknown[]): unknown[] {
  const options = args[0] as { port?: unknown; defaultPort?: unknown; protocol?: unknown; agent?: { defaultPort?: unknown } } | null
  if (!options || typeof options !== 'object' || options instanceof URL) return args
  if ((options.port !== undefined && options.port !== null && options.port !== '') || options.defaultPort !== undefined) return args
  if ((options.protocol ?? 'https:') !== 'https:' || !options.agent || typeof options.agent !== 'object') return args
  // read here, as the interceptor reads it: off the `node:https` stack, where agent-base says 80
  if (options.agent.defaultPort !== 80) return args
  return [{ ...options, port: 443 }, ...args.slice(1)]
}

/**
 * Wrap `https.request` and `https.get` as they are now (the interceptor's patch) unless they are wrapped already;
 * returns whether it wrapped (the caller syncs ESM named imports) and the undo, which only takes off its own wrappers.
 * @example
 * const { patched, undo } = guardHttpsPort()
 */
export function guardHttpsPort(): { patched: boolean; undo: () => void } {
  let patched = false
  for (const name of ['request', 'get'] as const) {
    const current = https[name]
    if (st.wrappers.has(current)) continue
    const wrapper: RequestFn = function (this: unknown, ...args: unknown[]) {
      return current.apply(this, withPort(args))
    }
    st.wrappers.set(wrapper, current)
    https[name] = wrapper
    patched = true
  }
  return {
    patched,
    undo: () => {
      for (const name of ['request', 'get'] as const) {
        const original = st.wrappers.get(https[name])
        if (original) https[name] = original
      }
      st.wrappers.clear()
    },
  }
}
