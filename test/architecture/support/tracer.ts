/**
 * The tracer's runtime: what `globalThis.__fluxTrace` is while instrumented sources run (see `instrument.ts`). It keeps
 * where control is in src/ (a frame per call) and records, for each watched request, the events of that request's
 * window, in the order they happen.
 *
 * A window opens at the first function entered in the start folder (`src/sources/`) from outside any open window
 * whose parameters carry the watched `Request` (an `@mswjs/interceptors` request event: `{ request, controller }`), and
 * closes when that event's controller is handed the answer (`respondWith`, `errorWith`, or `passthrough` to the network).
 * Those are the interception library's contract, not fluxlab's: nothing here names a function of src/.
 *
 * An event belongs to a window when the frame it concerns does. A frame belongs to the window of:
 * - its caller, when src code called it (the synchronous call tree);
 * - else (a library called it: a stream's `pull`, a promise callback, the wrapped `controller.passthrough`) the frame
 *   that created the closure (its lexically enclosing call), or the async context it runs in (a promise or timer created
 *   by the window's code), in that order.
 * Anything else (another request's stragglers, a timer of the runner, a logger flushing, the setup files' hooks) is
 * outside every window and is only counted. Nothing depends on time: the order is the program's.
 *
 * Async functions and generators (the choice the lead asked to document): control leaves a function at each `await` and
 * `yield` (a `suspend` event) and comes back when it resumes (a `resume` event, also when a rejected `await` lands in a
 * `catch`/`finally`, or at the exit). So a *stay* (consecutive events in one file) ends when an await hands control to
 * code in another file, and the resumption after it is a new stay, counted as a *return*: the awaited callee returning
 * to its caller. An await on something outside src/ (a body read) with nothing of src/ in between stays in the same stay.
 */
import { createHook, executionAsyncResource } from 'node:async_hooks'

/** `enter`: a call into a function; `exit`: it finished; `suspend`/`resume`: an async function or generator paused and went on. */
export type EventKind = 'enter' | 'exit' | 'suspend' | 'resume'

export interface TraceEvent {
  kind: EventKind
  /** The file of the function the event concerns, as `src/<path>`. */
  file: string
  /** `enter` only: the caller's file; absent when code outside src/ called (a library, the runtime). */
  from?: string
}

/** Which request a window watches: the `nth` (1-based, default 1) intercepted request with this method and URL or path. */
export interface Target {
  name: string
  method: string
  /** The exact URL. */
  url?: string
  /** The URL's path, any host (a replay goes to the provider's host, the recording may have gone elsewhere). */
  path?: string
  nth?: number
}

export interface WindowTrace {
  name: string
  /** `METHOD url` of the request the window watched. */
  request: string
  events: TraceEvent[]
  /** How the window closed: the controller call that handed the answer back, or why it did not. */
  endedBy: string
  /** Events outside every window while this one was open (they are not in `events`). */
  outside: number
}

export interface TraceOutput {
  windows: WindowTrace[]
  /** Targets no request matched. */
  missing: string[]
  /**
   * Resumes that found a frame still active in src/ (a suspension the transform cannot see, such as `for await`, or a
   * frame a library left without returning), as `resumed file ← active file`, the first few.
   */
  stale: string[]
}

interface Window {
  target: Target
  request: string
  events: TraceEvent[]
  open: boolean
  endedBy: string
  outside: number
}

interface Frame {
  file: string
  /** Who called the current synchronous segment: the caller on the way in, nobody after a resume (the event loop). */
  caller?: Frame
  window?: Window
  /** How the frame is paused: at an `await` (it goes on from the event loop) or a `yield` (from whoever calls `next()`). */
  suspended: false | 'await' | 'yield'
}

const WINDOW = Symbol('fluxlab.pathTrace.window')

/**
 * A tracer for the instrumented sources: install it as `globalThis.__fluxTrace` before they load.
 * @example
 * const tracer = new PathTracer([{ name: 'model', method: 'POST', path: '/v1/chat/completions' }], 'src/sources/')
 * ;(globalThis as { __fluxTrace?: unknown }).__fluxTrace = tracer
 */
export class PathTracer {
  private cur: Frame | undefined
  private readonly windows: Window[] = []
  private readonly seen = new Map<string, number>()
  private readonly stale: string[] = []
  private readonly hook = createHook({
    // @note a promise or timer created by the window's code carries the window; one created by a library while it runs a
    // callback of such a resource inherits it (as an AsyncLocalStorage store would): only resources, never frames, so a
    // library that merely calls into a window does not join it.
    init: (_id, _type, _trigger, resource: object) => {
      const w = this.cur ? live(this.cur.window) : live(windowOf(executionAsyncResource()))
      if (w) (resource as { [WINDOW]?: Window })[WINDOW] = w
    },
  })

  constructor(
    private readonly targets: readonly Target[],
    private readonly startFolder: string,
  ) {
    this.hook.enable()
  }

  /** Stop watching async resources (the recorded windows stay). */
  disable(): void {
    this.hook.disable()
  }

  enter(file: string, lexical: Frame | undefined, args: unknown[] | undefined): Frame {
    const caller = this.cur
    let window = caller ? live(caller.window) : (live(lexical?.window) ?? live(windowOf(executionAsyncResource())))
    if (!window && args && file.startsWith(this.startFolder)) window = this.open(args)
    const frame: Frame = { file, caller, window, suspended: false }
    this.record(frame, { kind: 'enter', file, ...(caller ? { from: caller.file } : {}) })
    this.cur = frame
    return frame
  }

  exit(frame: Frame): void {
    if (frame.suspended) this.resume(frame, undefined)
    this.record(frame, { kind: 'exit', file: frame.file })
    this.cur = frame.caller
  }

  /** Before an `await`: control goes back to the caller of this segment. */
  suspend<T>(frame: Frame, value: T): T {
    return this.pause(frame, value, 'await')
  }

  /** Before a `yield`: control goes back to whoever called `next()`. */
  yield<T>(frame: Frame, value: T): T {
    return this.pause(frame, value, 'yield')
  }

  resume<T>(frame: Frame, value: T): T {
    if (frame.suspended === 'yield') frame.caller = this.cur
    else {
      // A continuation after an await starts from the event loop: nothing of src/ can be running below it.
      if (this.cur && this.stale.length < 20) this.stale.push(`${frame.file} ← ${this.cur.file}`)
      frame.caller = undefined
    }
    frame.suspended = false
    this.cur = frame
    this.record(frame, { kind: 'resume', file: frame.file })
    return value
  }

  /** First statement of a `catch`/`finally` block in an async function or generator: a rejected await lands here. */
  here(frame: Frame): void {
    if (frame.suspended) this.resume(frame, undefined)
  }

  private pause<T>(frame: Frame, value: T, how: 'await' | 'yield'): T {
    this.record(frame, { kind: 'suspend', file: frame.file })
    frame.suspended = how
    this.cur = frame.caller
    frame.caller = undefined
    return value
  }

  /** The windows recorded so far. */
  output(): TraceOutput {
    const missing = this.targets.filter((t) => !this.windows.some((w) => w.target === t)).map(describe)
    const windows = this.windows.map((w) => ({
      name: w.target.name,
      request: w.request,
      events: w.events,
      endedBy: w.open ? 'still open when the trace was written' : w.endedBy,
      outside: w.outside,
    }))
    return { windows, missing, stale: this.stale }
  }

  private record(frame: Frame, event: TraceEvent): void {
    if (frame.window?.open) frame.window.events.push(event)
    else for (const w of this.windows) if (w.open) w.outside++
  }

  /** A window for the request an interceptor event in `args` carries, when it is a watched one. */
  private open(args: unknown[]): Window | undefined {
    const { request, controller } = requestIn(args)
    if (!request) return undefined
    const url = new URL(request.url)
    const matching = this.targets.filter((t) => t.method === request.method && (t.url ? t.url === request.url : t.path === url.pathname))
    if (matching.length === 0) return undefined
    const key = matching.map(describe).join('|')
    const count = (this.seen.get(key) ?? 0) + 1
    this.seen.set(key, count)
    const target = matching.find((t) => (t.nth ?? 1) === count && !this.windows.some((w) => w.target === t))
    if (!target) return undefined
    const window: Window = { target, request: `${request.method} ${request.url}`, events: [], open: true, endedBy: '', outside: 0 }
    this.windows.push(window)
    if (!controller) {
      window.endedBy = 'no controller in the start event: the window stayed open'
      return window
    }
    for (const method of ['respondWith', 'errorWith', 'passthrough'] as const) {
      const original = controller[method]
      if (typeof original !== 'function') continue
      controller[method] = function (this: unknown, ...a: unknown[]) {
        if (window.open) {
          window.open = false
          window.endedBy = `controller.${method}`
        }
        return original.apply(this, a)
      }
    }
    return window
  }
}

function live(w: Window | undefined): Window | undefined {
  return w?.open ? w : undefined
}

function windowOf(resource: object | undefined): Window | undefined {
  return (resource as { [WINDOW]?: Window } | undefined)?.[WINDOW]
}

function describe(t: Target): string {
  return `${t.name}: ${t.method} ${t.url ?? `*${t.path}`}${t.nth && t.nth > 1 ? ` (#${t.nth})` : ''}`
}

type Controller = Record<'respondWith' | 'errorWith' | 'passthrough', ((...a: unknown[]) => unknown) | undefined>

/** A `Request` among the values or one level into them, and the interceptor controller found beside it. */
function requestIn(args: unknown[]): { request?: Request; controller?: Controller } {
  const isController = (v: unknown): v is Controller =>
    typeof v === 'object' && v !== null && typeof (v as { respondWith?: unknown }).respondWith === 'function'
  for (const level of [args, ...args.filter((a): a is object => typeof a === 'object' && a !== null && !(a instanceof Request)).map((a) => Object.values(a))]) {
    const request = level.find((v): v is Request => v instanceof Request)
    if (request) return { request, controller: level.find(isController) }
  }
  return {}
}
