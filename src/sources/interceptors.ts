/**
 * The `@mswjs/interceptors` classes fluxlab builds its interception from, loaded when a process first intercepts.
 * @note issue 39 (bench section 6): a Playwright spec that imports `fluxlab` (a `Rubric`) loads the index in the
 * runner's main process too, which lists the tests and intercepts nothing: the interceptors cost it 20–45 ms. So a
 * process loads them when it is about to intercept: `loadInterceptors()` before the first acquire where that can wait
 * (a run, the vitest setup), `provideInterceptors()` from an entry that always intercepts and imports them itself (the
 * preload, a Playwright worker's engine, the ES module jest setup), and otherwise, synchronously, with `require` at the
 * first acquire (in the CommonJS build that is the copy a static import gave, in the same module registry; in the ES
 * module build the CommonJS copy, which shares the running interceptors through their global symbols as any copy does:
 * `./share.ts`).
 */
import { createRequire } from 'node:module'
import type { ClientRequestInterceptor } from '@mswjs/interceptors/ClientRequest'
import type { FetchInterceptor } from '@mswjs/interceptors/fetch'
import type { WebSocketInterceptor } from '@mswjs/interceptors/WebSocket'
import type { XMLHttpRequestInterceptor } from '@mswjs/interceptors/XMLHttpRequest'

export interface InterceptorClasses {
  ClientRequestInterceptor: typeof ClientRequestInterceptor
  FetchInterceptor: typeof FetchInterceptor
  XMLHttpRequestInterceptor: typeof XMLHttpRequestInterceptor
  WebSocketInterceptor: typeof WebSocketInterceptor
}

const KEY = Symbol.for('fluxlab.interceptor-classes')
const g = globalThis as { [KEY]?: InterceptorClasses }

/**
 * Hand over the classes an entry imported itself (its static import decides the copy: ES module or CommonJS).
 * @example
 * provideInterceptors({ ClientRequestInterceptor, FetchInterceptor, XMLHttpRequestInterceptor, WebSocketInterceptor })
 */
export function provideInterceptors(classes: InterceptorClasses): void {
  g[KEY] ??= classes
}

/**
 * Load the classes ahead of an acquire that cannot wait (the copy this build imports: ES module or CommonJS).
 * @example
 * await loadInterceptors()
 * const release = acquireInterception(admit)
 */
export async function loadInterceptors(): Promise<void> {
  if (g[KEY]) return
  // @note through fluxlab's own module, whose static imports bring the package: a vitest `vmForks` worker failed every
  // file when the package was imported at run time by name ("request for 'is-node-process' is not in cache": its VM
  // linker does not load a package's dependencies for such an import), and loads a module's static graph whole.
  provideInterceptors((await import('./interceptors-eager.js')).importedInterceptors)
}

// The format being built (tsup.config.ts); not defined when fluxlab runs from its sources.
declare const FLUXLAB_BUILD_FORMAT: string | undefined

/**
 * The classes: those loaded or provided, else required now.
 * @note in the CommonJS build with the module's own `require`: under jest that is the test file's, so the classes join
 * its module registry and patch its environment's globals, as the static import did (`createRequire` would load them
 * once, in the outer realm). In the ES module build, and from the sources, with `createRequire`.
 * @example
 * const { FetchInterceptor } = interceptorClasses()
 */
export function interceptorClasses(): InterceptorClasses {
  if (g[KEY]) return g[KEY]
  const load = typeof FLUXLAB_BUILD_FORMAT === 'string' && FLUXLAB_BUILD_FORMAT === 'cjs' ? require : createRequire(import.meta.url)
  return (g[KEY] = {
    ClientRequestInterceptor: load('@mswjs/interceptors/ClientRequest').ClientRequestInterceptor,
    FetchInterceptor: load('@mswjs/interceptors/fetch').FetchInterceptor,
    XMLHttpRequestInterceptor: load('@mswjs/interceptors/XMLHttpRequest').XMLHttpRequestInterceptor,
    WebSocketInterceptor: load('@mswjs/interceptors/WebSocket').WebSocketInterceptor,
  })
}
