// The app's own msw handlers for its users API, as its suite would write them.
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'

/** msw with a strict policy: a request no handler answers fails, except the geo tool, which the app lets through. */
export function mswUsers() {
  const unhandled: string[] = []
  const server = setupServer(
    http.get('https://users.app.test/me', () => HttpResponse.json({ name: 'Ada' })),
    http.get('http://users.app.test/me', () => HttpResponse.json({ name: 'Ada' })),
  )
  const listen = () =>
    server.listen({
      onUnhandledRequest(request, print) {
        if (new URL(request.url).pathname === '/geo/capital') return
        unhandled.push(`${request.method} ${request.url}`)
        print.error()
      },
    })
  return { server, listen, unhandled }
}

