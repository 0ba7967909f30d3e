/**
 * What every request source is (issue 40 item 2): something that hands fluxlab a request, a socket or a child process
 * to decide about, and asks one question of the layer above, `admit`. The sources are registered in `./registry.ts`;
 * `acquireInterception` enables them all and disposes them in reverse. See docs/adding-a-source.md.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { realmState } from './process-hold.js'

/**
 * The mark of fluxlab's own sends (`liveFetch`, the real socket a realtime recording opens): every source hands what is
 * sent inside it on untouched, so a live send never re-enters fluxlab's interception. One mark for every source (issue 40
 * item 6: the listener and the undici seams kept one each, and a live send set both, one inside the other).
 * @example
 * ownSends.run(true, () => fetch(request)) // no source of ours routes it
 */
export const ownSends: AsyncLocalStorage<true> = realmState(Symbol.for('fluxlab.own-sends.v1'), () => new AsyncLocalStorage<true>())

/** Which source handed a request over (`via`), and for which process of the tree (`process`, its command line). */
export interface Origin {
  readonly via: 'fetch' | 'http' | 'xhr' | 'undici' | 'websocket' | 'child' | 'worker' | 'mcp'
  /** The command line of the process it is about: a child started now (`child`, `worker`), or the one that sent it. */
  readonly process?: string
  /**
   * No Response can answer it (an upgrade, a `CONNECT`): the admission only says whether it is a model call
   * (`preempts`), refused then, and where the refusal goes (`report`).
   */
  readonly unroutable?: true
  /**
   * The app's own mocks (msw, nock) listen on the interceptor that handed it over, after fluxlab's listener: a model
   * call fluxlab answers is one they never see (counted, so the run summary can say so while recording).
   */
  readonly mocks?: true
}

/**
 * The one question a source asks: what becomes of `request` from `origin`. `undefined`: it passes untouched. A source
 * that hands over a process or a socket rather than a request asks with `request` `undefined` (a child, whose
 * `origin.process` names it) or the socket's opening (`POST wss://…`), and reads the admission's member for it.
 * @example
 * const admitted = admit(request, { via: 'undici' }); if (admitted) respond(handler, admitted.answer)
 */
export type Admit = (request: Request | undefined, origin: Origin) => Admission | undefined

/** What the layer above decided about one request, once. */
export interface Admission {
  /**
   * Answered before the app's own mocks see it (the model calls). Every other request is offered to them first, and
   * is answered only if none of them did (it would have gone to the network).
   */
  preempts: boolean
  /** Answer it: a Response, or `undefined` to let it go on (to the app's mocks, or the network). */
  answer(): Promise<Response | undefined>
  /** `unroutable`: fail the run with the refusal the source made of it. */
  report?(error: Error): void
  /** `websocket`: put the socket, every frame of it, on the run's tape; without it the socket goes to its server. */
  socket?(connection: SocketConnection): void
  /** `child`, `worker`: what a process started now gets, so that its requests come back to this run. */
  child?(): ChildEnv | undefined
  /** `child` started with `execSync` and the like: this process holds the tape, so a holder continues the run. */
  holder?(): SyncChild | undefined
}

/**
 * A request source: `enable` at every acquire of the interception (the first patches, a later one picks up what
 * changed since, e.g. a copy of undici loaded since), `dispose` once, after the last release.
 * @example
 * const source: RequestSource = { name: 'mine', enable: (admit) => patch(admit), dispose: unpatch }
 */
export interface RequestSource {
  readonly name: string
  enable(admit: Admit): void
  dispose(): void
}

/** What a child of a run gets: the preload to import, and the variables that tell it where its tape is. */
export interface ChildEnv {
  /** A file URL (no quoting needed in NODE_OPTIONS). */
  preload: string
  env: Record<string, string>
  /** Variables it gets only where its environment lacks them (a replay's placeholder keys, filled where it started). */
  defaults?: Record<string, string>
  /** Called when the child exits (the run then knows whether any process of its tree ever reached it). */
  exited?(): void
}

/** A child started with `execSync`, `execFileSync` or `spawnSync` while this process holds a run: it runs under a holder. */
export interface SyncChild {
  /** The holder's arguments (after `node`) for the child: the program and its args, and the shell to start it in. */
  argv(child: { argv: string[]; shell: boolean | string }): string[]
  /** The holder exited: what it did is taken back into the run; how the child failed to start, if it did. */
  done(): { spawnError?: { message: string; code?: string; errno?: number; syscall?: string; path?: string } }
}

/** One intercepted client socket, as `Admission.socket` drives it. */
export interface SocketConnection {
  /** The URL the client opened (`wss://api.openai.com/v1/realtime?model=…`). */
  readonly url: URL
  /** The subprotocols the client asked for. */
  readonly protocols: string[]
  /** Hand a frame to the client, as if its server sent it. */
  send(data: string): void
  /** Close the client's socket. */
  close(code?: number, reason?: string): void
  /** Every frame the client sends (text; a binary frame is handed over as its bytes' UTF-8 text). */
  onFrame(listener: (data: string) => void): void
  /** The client closed its socket. */
  onClose(listener: () => void): void
  /** Open a real socket to `url` with `protocols`, past the interception. */
  openReal(url: URL, protocols: string[]): RealSocket
}

/** A real socket fluxlab opened itself (a recording's connection to the server). */
export interface RealSocket {
  /** Resolves when it is open; rejects when it failed to open. */
  readonly opened: Promise<void>
  send(data: string): void
  close(): void
  onMessage(listener: (data: string) => void): void
  onClose(listener: (code: number, reason: string) => void): void
}
