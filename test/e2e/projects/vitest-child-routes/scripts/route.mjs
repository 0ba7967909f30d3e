// This process's own way to the vendor: requests to VENDOR_URL's host go to ROUTE_TO instead (a gateway's address).
import { Agent, setGlobalDispatcher } from 'undici'

const vendor = new URL(process.env.VENDOR_URL).origin

/** An undici dispatcher that sends the vendor's requests to ROUTE_TO, and any other where it was going. */
export const routing = () => new Agent().compose((dispatch) => (opts, handler) => dispatch(new URL(String(opts.origin)).origin === vendor ? { ...opts, origin: process.env.ROUTE_TO } : opts, handler))

/** Route this process's requests: `dispatcher` for every fetch, `wrapper` for the ones the returned fetch sends. */
export function route(how) {
  if (how === 'dispatcher') setGlobalDispatcher(routing())
  if (how === 'wrapper') {
    const dispatcher = routing()
    return (input, init) => fetch(input, { ...init, dispatcher })
  }
  return undefined
}
