// The app's own `fetch` wrapper for its flags service, as a suite may install one when a test file loads (after
// fluxlab's setup file): it answers the flags host itself and hands every other request to the `fetch` it wrapped.

/** Wrap `globalThis.fetch`; `seen` lists what reached the wrapper (`GET flags.app.test`, `POST /v1/chat/completions`). */
export function wrapFetch() {
  const wrapped = globalThis.fetch
  const seen: string[] = []
  globalThis.fetch = async (input, init) => {
    const request = new Request(input, init)
    const url = new URL(request.url)
    seen.push(`${request.method} ${url.host === 'flags.app.test' ? url.host : url.pathname}`)
    if (url.host === 'flags.app.test') return Response.json({ tools: true })
    return wrapped(request)
  }
  return { seen, restore: () => void (globalThis.fetch = wrapped) }
}
