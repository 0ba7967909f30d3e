// The server's own fetch wrapper, as a gateway, an auth or a tracing wrapper would be: a request to the model vendor's
// host (OPENAI_BASE_URL's, in the server's environment only) gets a dispatcher that sends it to the gateway
// (PROVIDER_URL); every other request goes where it was going. Nothing else on the machine knows that way.
import { Agent } from 'undici'

const vendor = new URL(process.env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1').origin
const gateway = new Agent().compose((dispatch) => (opts, handler) => dispatch({ ...opts, origin: process.env.PROVIDER_URL ?? 'http://127.0.0.1:9' }, handler))
const send = globalThis.fetch

globalThis.fetch = (input, init) => {
  const url = input instanceof Request ? input.url : String(input)
  return new URL(url).origin === vendor ? send(input, { ...init, dispatcher: gateway } as RequestInit) : send(input, init)
}
