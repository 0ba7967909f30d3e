/**
 * HTTP/2 is not intercepted: `@mswjs/interceptors` has no `node:http2` interceptor, so a session a
 * client opens with `http2.connect` (the AWS Bedrock Runtime client's default `NodeHttp2Handler`,
 * gRPC clients) is neither recorded nor replayed. This guard makes that loud: while interception is
 * attached, each HTTP/2 authority a process connects to is named once in a warning, with the fix.
 */
import { createRequire } from 'node:module'
import { FluxError, notice } from '../errors.js'
import { realmState } from './process-hold.js'

const offline = () => ['1', 'true', 'yes'].includes((process.env.FLUX_OFFLINE ?? '').trim().toLowerCase())

type Connect = (authority: string | URL, ...rest: unknown[]) => unknown

const KEY = Symbol.for('fluxlab.http2-guard.v1')
const st = realmState<{ original?: Connect; warned: Set<string> }>(KEY, () => ({ original: undefined, warned: new Set() }))

/** The CommonJS `node:http2` object: the one CommonJS clients call through (`http2.connect(…)`). */
const http2 = createRequire(import.meta.url)('node:http2') as { connect: Connect }

const originOf = (authority: string | URL): string => {
  try {
    return new URL(String(authority)).origin
  } catch {
    return String(authority)
  }
}

/**
 * Wrap `http2.connect` so each new authority is warned about once; returns the undo. Returns
 * whether it patched, so the caller can sync ESM named imports (`import { connect } from 'node:http2'`).
 * @example
 * const { patched, undo } = guardHttp2()
 */
export function guardHttp2(): { patched: boolean; undo: () => boolean } {
  if (st.original) return { patched: false, undo: () => false }
  const original = http2.connect
  st.original = original
  http2.connect = function connect(this: unknown, authority: string | URL, ...rest: unknown[]) {
    const origin = originOf(authority)
    // @note issue 24: FLUX_OFFLINE forbids every live request; a session fluxlab cannot see is refused before it connects.
    if (offline())
      throw new FluxError('FLUX_OFFLINE', {
        failed: `open an HTTP/2 session to ${origin}`,
        reason: 'FLUX_OFFLINE=1 forbids every live request, and fluxlab cannot record or replay HTTP/2',
        fix:
          'Send the client over HTTP/1.1 (a Bedrock Runtime client: `new BedrockRuntimeClient({ requestHandler: new NodeHttpHandler() })` from ' +
          "'@smithy/node-http-handler'), or unset FLUX_OFFLINE.",
      })
    if (!st.warned.has(origin)) {
      st.warned.add(origin)
      process.emitWarning(
        notice(
          `an HTTP/2 session to ${origin} is not intercepted: its requests are neither recorded nor replayed (they go to the network). ` +
            'A Bedrock Runtime client sends over HTTP/2 by default: give it the HTTP/1.1 handler, `new BedrockRuntimeClient({ requestHandler: new ' +
            "NodeHttpHandler() })` (from '@smithy/node-http-handler').",
        ),
        { code: 'FLUX_HTTP2_UNSEEN' },
      )
    }
    return original.call(this, authority, ...rest)
  } as Connect
  return {
    patched: true,
    undo: () => {
      if (st.original !== original) return false
      http2.connect = original
      st.original = undefined
      return true
    },
  }
}
