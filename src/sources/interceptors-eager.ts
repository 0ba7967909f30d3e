/**
 * The interceptor classes by static import, for an entry that always intercepts (`./interceptors.ts`): the copy of
 * @mswjs/interceptors its build imports, ES module or CommonJS, as before issue 39 loaded them on demand. It imports
 * nothing of fluxlab's, so `loadInterceptors()` can import it at run time without a circle.
 */
import { ClientRequestInterceptor } from '@mswjs/interceptors/ClientRequest'
import { FetchInterceptor } from '@mswjs/interceptors/fetch'
import { WebSocketInterceptor } from '@mswjs/interceptors/WebSocket'
import { XMLHttpRequestInterceptor } from '@mswjs/interceptors/XMLHttpRequest'

/**
 * The statically imported classes, to hand over with `provideInterceptors` (the first provided or loaded are kept).
 * @example
 * provideInterceptors(importedInterceptors)
 */
export const importedInterceptors = { ClientRequestInterceptor, FetchInterceptor, XMLHttpRequestInterceptor, WebSocketInterceptor }
