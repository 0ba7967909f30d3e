import { ClientRequestInterceptor } from '@mswjs/interceptors/ClientRequest'
import { FetchInterceptor } from '@mswjs/interceptors/fetch'
import { WebSocketInterceptor } from '@mswjs/interceptors/WebSocket'
import { XMLHttpRequestInterceptor } from '@mswjs/interceptors/XMLHttpRequest'
import { expect, test } from 'vitest'
import { FETCH_SYMBOL, HTTP_SYMBOL, kinds, XHR_SYMBOL } from './interception.js'
import { interceptorClasses, loadInterceptors } from './interceptors.js'

const symbolOf = (Kind: unknown) => (Kind as { symbol: symbol }).symbol

test("the global symbols the running interceptors are kept under are the classes' own", () => {
  expect([FETCH_SYMBOL, HTTP_SYMBOL, XHR_SYMBOL]).toEqual([FetchInterceptor, ClientRequestInterceptor, XMLHttpRequestInterceptor].map(symbolOf))
})

test('the classes loaded ahead of the first acquire are the ones this build imports, in the order the listeners sit on them', async () => {
  await loadInterceptors()
  expect(interceptorClasses()).toEqual({ ClientRequestInterceptor, FetchInterceptor, XMLHttpRequestInterceptor, WebSocketInterceptor })
  expect(kinds()).toEqual([ClientRequestInterceptor, FetchInterceptor, XMLHttpRequestInterceptor])
})
