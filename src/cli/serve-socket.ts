/**
 * The socket of `fluxlab serve`'s tree, listening from the start (issue 39, bench section 6): the app server's preload
 * says hello there as it starts, and a hello needs no engine. The engine (./serve-run.ts, about 80 ms of CPU with the
 * interceptors it imports) is loaded by serve when the server's own scenario needs it whatever the server does (a fixture
 * to replay, a recording allowed), else by the first request or report that comes here: under CI a server that makes
 * no call of its own never loads it.
 */
import type { Server } from 'node:net'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { FILES } from '../cassette/fixture-files.js'
import { readFlag, readGolden, updateStateFromEnv } from '../golden/update-mode.js'
import { serveOverSocket } from '../sources/tree-wire.js'
import { fixtureStore } from '../store/current.js'

type Listen = typeof serveOverSocket
type Handlers = { answer: Parameters<Listen>[1]; heard: NonNullable<Parameters<Listen>[2]> }

/** serve's listener, and how the engine's tree takes it over (the `takeOver` of `childEnv`'s `at`). */
export interface ServeSocket {
  /** Hands the tree's handlers to the listener (every word heard so far goes to them first) and returns it. */
  takeOver: Listen
}

/**
 * Listen at `path` now; `engine` is called (once is enough: it memoizes) when a request or a report comes before the
 * engine took the listener over, and must do so. `listening` is called when a server of the tree starts listening.
 * @example
 * const socket = serveSocket(address.path, () => engine(), () => checkNow())
 * serverRun({ …, takeOver: socket.takeOver })
 */
export function serveSocket(path: string, engine: () => Promise<unknown>, listening?: () => void): ServeSocket {
  let handlers: Handlers | undefined
  const contacts = new Set<string>()
  const ready = async (): Promise<Handlers> => {
    if (!handlers) await engine()
    if (!handlers) throw new Error('the engine of fluxlab serve did not take its socket over')
    return handlers
  }
  const server: Server = serveOverSocket(path, async (head, request, live) => (await ready()).answer(head, request, live), {
    report: (r) =>
      void ready().then(
        (h) => h.heard.report?.(r),
        () => {},
      ),
    contact: (token) => (handlers ? handlers.heard.contact?.(token) : contacts.add(token)),
    listening: () => listening?.(),
  })
  // the engine's tree removes it too when it opens; one that never opens leaves nothing behind
  if (process.platform !== 'win32') process.once('exit', () => rmSync(path, { force: true }))
  return {
    takeOver: (_path, answer, heard = {}) => {
      handlers = { answer, heard }
      for (const token of contacts) heard.contact?.(token)
      contacts.clear()
      return server
    },
  }
}

/**
 * What the server's own scenario at `dir` is: replayed when its fixture exists, recorded when recording is allowed (else
 * its calls are refused). Read without the engine (`fixtureExists` is the store's check of scenario.yaml); throws on a
 * bad `FLUX_OFFLINE` or `FLUX_GOLDEN`.
 * @example
 * const { replay, canRecord } = ownScenario(dir)
 */
export function ownScenario(dir: string): { offline: boolean; replay: boolean; canRecord: boolean } {
  const offline = readFlag('FLUX_OFFLINE')
  return {
    offline,
    replay: fixtureStore().exists(join(dir, FILES.manifest)) && readGolden() !== 'update',
    canRecord: !offline && updateStateFromEnv() !== 'none',
  }
}
