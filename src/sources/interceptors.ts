/**
 * The `@mswjs/interceptors` classes fluxlab builds its interception from, loaded when a process first intercepts.
 * @note issue 39 (bench section 6): a Playwright spec that imports `fluxlab` (a `Rubric`) loads the index in the
 * runner's main process too, which lists the tests and intercepts nothing: the interceptors cost it 20–45 ms. So a
 * process loads them when it is about to intercept: `loadInterceptors()` before the first acquire where that can wait
 * (a run, the vitest setup), `provideInterceptors()` from an entry that always intercepts and imports them itself (the
 * preload, a Playwright worker's engine, the ES module jest setup), and otherwise, synchronously, with `require` at the
 * first acquire (in the CommonJS build that is the copy a static import gave; in the ES module build the CommonJS copy,
 * which shares the running interceptors through their global symbols as any copy does: `./share.ts`).
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
  const [clientRequest, fetchModule, xhr, webSocket] = await Promise.all([
    import('@mswjs/interceptors/ClientRequest'),
    import('@mswjs/interceptors/fetch'),
    import('@mswjs/interceptors/XMLHttpRequest'),
    import('@mswjs/interceptors/WebSocket'),
  ])
  provideInterceptors({
    ClientRequestInterceptor: clientRequest.ClientRequestInterceptor,
    FetchInterceptor: fetchModule.FetchInterceptor,
    XMLHttpRequestInterceptor: xhr.XMLHttpRequestInterceptor,
    WebSocketInterceptor: webSocket.WebSocketInterceptor,
  })
}

/**
 * The classes: those loaded or provided, else required now.
 * @example
 * const { FetchInterceptor } = interceptorClasses()
 */
export function interceptorClasses(): InterceptorClasses {
  if (g[KEY]) return g[KEY]
  const require = createRequire(import.meta.url)
  return (g[KEY] = {
    ClientRequestInterceptor: require('@mswjs/interceptors/ClientRequest').ClientRequestInterceptor,
    FetchInterceptor: require('@mswjs/interceptors/fetch').FetchInterceptor,
    XMLHttpRequestInterceptor: require('@mswjs/interceptors/XMLHttpRequest').XMLHttpRequestInterceptor,
    WebSocketInterceptor: require('@mswjs/interceptors/WebSocket').WebSocketInterceptor,
  })
}
