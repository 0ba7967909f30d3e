/**
 * The interceptor classes by static import, for an entry that always intercepts (`./interceptors.ts`): the copy of
 * @mswjs/interceptors its build imports, ES module or CommonJS, as before issue 39 loaded them on demand.
 */
import { ClientRequestInterceptor } from '@mswjs/interceptors/ClientRequest'
import { FetchInterceptor } from '@mswjs/interceptors/fetch'
import { WebSocketInterceptor } from '@mswjs/interceptors/WebSocket'
import { XMLHttpRequestInterceptor } from '@mswjs/interceptors/XMLHttpRequest'
import { provideInterceptors } from './interceptors.js'

/**
 * Hand the statically imported classes over (the first provided or loaded are kept).
 * @example
 * provideImportedInterceptors()
 */
export function provideImportedInterceptors(): void {
  provideInterceptors({ ClientRequestInterceptor, FetchInterceptor, XMLHttpRequestInterceptor, WebSocketInterceptor })
}
