/**
 * What every realtime-socket family shares: the request that stands for opening the socket
 * (`src/sources/realtime-socket.ts` sends it; the codecs name it in the trace and the tape).
 */
import { rec } from './json.js'

/** The body of the call that opens a realtime socket: its answer is what the server sent before the client's first frame. */
export const OPEN_FRAME = { type: 'websocket.open' } as const

/**
 * Whether a frame body is the opening call's.
 * @example
 * isOpenFrame({ type: 'websocket.open' }) // true
 */
export function isOpenFrame(body: unknown): boolean {
  return rec(body).type === OPEN_FRAME.type
}
