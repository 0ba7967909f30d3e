/**
 * Which realm's interception holds the process-wide hooks, and each realm's interception state, kept where every
 * copy of fluxlab in the process finds them whatever global object it runs under.
 *
 * @note issue 24: a realm is a global object with its own copies of the modules loaded in it. In a plain Node
 * process there is one. Under jest each test file is one (a vm context with its own `globalThis` and module
 * registry), but what fluxlab patches for interception is mostly the worker process's: `node:http` and
 * `node:https`, `node:http2`, the diagnostics channel undici announces its requests on, the npm undici copies in
 * Node's module cache. A file whose interception was not let go when it ended (its project names a test
 * environment of its own, so fluxlab's never tears it down) left those hooks routing into its own state, which
 * jest soft-deletes, and the next file patched the same modules again on top: in a worker that ran three files,
 * the earlier files' diagnostics-channel listeners took the third file's live requests away from it (an empty
 * body upstream, a stream that never settled). Now a realm that starts intercepting takes the process from the
 * realm that held it: a worker runs its test files one after another, so that realm's file is over, and its
 * interception is undone first, by its own undo, from state jest does not soft-delete.
 */
import { createRequire } from 'node:module'

interface Hold {
  /** The realm (its `globalThis`) whose interception holds the process-wide hooks. */
  realm: object
  /** Undo all of that realm's interception. */
  detach(): void
}

interface Home {
  holder?: Hold
  /** Each realm's interception state, by key; kept off the realm's own global, which jest cleans up after each file. */
  realms: WeakMap<object, Record<symbol, unknown>>
}

// @note the builtin modules are the process's in every jest realm (jest hands out the real ones, all but `process`
// and `module`), so an object hung on one is found from every test file. `node:http` is the module the interception
// patches first; a project that mocks it gets a home per realm, as it had before.
const HOME = Symbol.for('fluxlab.process-hold.v1')
const builtin = createRequire(import.meta.url)('node:http') as Record<symbol, Home | undefined>
const home: Home = (builtin[HOME] ??= { realms: new WeakMap() })

/**
 * This realm's `key` state, made by `create` on first use. Copies of fluxlab in one realm (the ESM and CJS builds)
 * share it, as they shared it on `globalThis`.
 * @example
 * const st = realmState(Symbol.for('fluxlab.interception.v3'), createState)
 */
export function realmState<T>(key: symbol, create: () => T): T {
  let bag = home.realms.get(globalThis)
  if (!bag) home.realms.set(globalThis, (bag = {}))
  return (bag[key] ??= create()) as T
}

/**
 * This realm's interception holds the process-wide hooks from now on; `detach` undoes all of it. Another realm's
 * interception that still held them is undone first (its file is over). Returns an error that undo threw, if any:
 * the caller says it, and goes on.
 * @example
 * const stale = holdProcess(detachAll)
 */
export function holdProcess(detach: () => void): Error | undefined {
  const before = home.holder
  home.holder = { realm: globalThis, detach }
  if (!before || before.realm === globalThis) return undefined
  try {
    before.detach()
  } catch (e) {
    return e as Error
  }
  return undefined
}

/**
 * Which realm's interception holds the process-wide hooks: a hook of another realm's that is still in place (its
 * undo failed) lets every request pass, as it must not route into a file that is over. A view rather than a
 * function, so the check costs the request path no call.
 * @example
 * if (processHold.holder?.realm !== globalThis) return
 */
export const processHold: { readonly holder?: { readonly realm: object } } = home

/**
 * This realm's interception is undone: the process-wide hooks are no one's.
 * @example
 * letGoProcess()
 */
export function letGoProcess(): void {
  if (home.holder?.realm === globalThis) home.holder = undefined
}

/**
 * Keep `value` whole past the end of the realm that made it, for the next realm's undo (`holdProcess`).
 * @note jest 30 soft-deletes the properties of every value a test file set on its global when the file ends
 * (`testEnvironmentOptions.globalsCleanup`; `'on'` deletes them), and msw's interceptors set themselves there. The
 * mark is the one jest-util's `protectProperties` puts on jest's own globals.
 * @example
 * keepForTakeover(interceptor)
 */
export function keepForTakeover(value: object): void {
  Object.defineProperty(value, Symbol.for('$$jest-protect-from-deletion'), { value: [], configurable: true, writable: true })
}
