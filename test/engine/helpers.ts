/**
 * Shared helpers for the engine tests: a clean environment per test, temp
 * fixture directories, tracked local servers, and clients that keep the raw
 * bytes (and chunk boundaries) they received.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { afterEach, beforeEach, expect } from 'vitest'
import { scenario, type Lab, type Outcome, type ScenarioOptions } from 'fluxlab'
import { loadExchanges, startProviderServer, type Exchange, type ProviderServer, type ProviderServerOptions } from '../support/index.js'

/** Env vars that change the mode; vitest's own process may have CI set. */
export const MODE_ENV = ['CI', 'FLUX_GOLDEN', 'FLUX_OFFLINE', 'FLUX_CASSETTE_MAX_BYTES'] as const

const dirs: string[] = []
const closers: Array<() => Promise<void>> = []

/**
 * Call once at the top of a test file: every test starts with the mode env vars
 * unset (restored afterwards) and its servers and temp dirs are cleaned up.
 */
export function useEngineSandbox(): void {
  const saved: Record<string, string | undefined> = {}
  beforeEach(() => {
    for (const k of MODE_ENV) {
      saved[k] = process.env[k]
      delete process.env[k]
    }
  })
  afterEach(async () => {
    for (const k of MODE_ENV) {
      if (saved[k] === undefined) delete process.env[k]
      else process.env[k] = saved[k]
    }
    await Promise.all(closers.splice(0).map((c) => c()))
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
  })
}

/** A fresh temp directory, removed after the test. */
export function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'flux-'))
  dirs.push(d)
  return d
}

/** Start the provider server with the exchanges of the given traffic files (and/or raw exchanges), closed after the test. */
export async function serve(script: Array<string | Exchange>, opts: Omit<ProviderServerOptions, 'script'> = {}): Promise<ProviderServer> {
  const exchanges = script.flatMap((s) => (typeof s === 'string' ? loadExchanges(s) : [s]))
  const server = await startProviderServer({ ...opts, script: exchanges })
  closers.push(() => server.close())
  return server
}

/** Track a server started some other way (`startProviderServer` with a script function). */
export function track(server: { close(): Promise<void> }): void {
  closers.push(() => server.close())
}

export interface RecordReplay<R> {
  recorded: Outcome<R>
  replayed: Outcome<R>
  /** `<dir>/<name>`: the fixture directory. */
  fixture: string
  /** Requests the server received while the replay ran (it is closed by then). */
  replayHits: number
  /** Requests the server received while recording. */
  recordHits: number
}

/**
 * Record `agent` against a live `server`, close the server, then replay the
 * same agent from the fixture in a second `scenario()` of the same name.
 */
export async function recordThenReplay<R>(
  name: string,
  server: ProviderServer,
  agent: (lab: Lab) => Promise<R>,
  options: ScenarioOptions = {},
): Promise<RecordReplay<R>> {
  const dir = options.dir ?? tempDir()
  const first = await scenario(name, { ...options, dir })
  expect(first.mode).toBe('record')
  const recorded = await first.run(agent)
  const recordHits = server.hits
  await server.close()
  const second = await scenario(name, { ...options, dir })
  expect(second.mode).toBe('replay')
  const replayed = await second.run(agent)
  return { recorded, replayed, fixture: join(dir, name), replayHits: server.hits - recordHits, recordHits }
}

/** A body as received: every read, in order. */
export interface Received {
  status: number
  headers: Record<string, string>
  chunks: Buffer[]
  text: string
}

/** `fetch` and read the body chunk by chunk, as the client receives it. */
export async function fetchChunks(url: string, init: RequestInit = {}): Promise<Received> {
  const res = await fetch(url, init)
  const chunks: Buffer[] = []
  const reader = res.body!.getReader()
  for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(Buffer.from(r.value))
  return { status: res.status, headers: Object.fromEntries(res.headers), chunks, text: Buffer.concat(chunks).toString('utf8') }
}

/**
 * `node:http` `request()` and collect every `data` event, as the client receives it.
 * @note `request` is an ESM named import on purpose: msw patches the CommonJS module object, and
 * fluxlab syncs the ESM bindings so this form is intercepted too.
 */
export function httpChunks(url: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Received> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(Buffer.from(c)))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: flatHeaders(res.headers), chunks, text: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(opts.body)
  })
}

function flatHeaders(h: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]))
}

/** The chunk boundaries of a received body, as byte lengths. */
export const boundaries = (r: Received): number[] => r.chunks.map((c) => c.length)

/** Parsed lines of a JSONL file. */
export function readJsonl<T = Record<string, any>>(file: string): T[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T)
}

/** Every file under `dir`, as relative paths. */
export function listFiles(dir: string): string[] {
  const out: string[] = []
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const full = join(d, name)
      if (statSync(full).isDirectory()) walk(full)
      else out.push(relative(dir, full))
    }
  }
  walk(dir)
  return out.sort()
}

export interface TinyServer {
  url: string
  host: string
  hits: number
  close(): Promise<void>
}

/**
 * A tiny non-provider HTTP server on 127.0.0.1 (the "weather API" tool),
 * answering GET /weather?city=… with JSON; closed after the test.
 */
export async function startWeatherServer(): Promise<TinyServer> {
  let hits = 0
  const server: Server = createServer((req, res) => {
    hits++
    const city = new URL(req.url ?? '/', 'http://x').searchParams.get('city') ?? '?'
    const body = JSON.stringify({ city, tempC: city === 'Paris' ? 18 : 25, sky: 'clear' })
    res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `w-${hits}-${Date.now()}` }).end(body)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const { port } = server.address() as AddressInfo
  const close = () =>
    new Promise<void>((r) => {
      server.close(() => r())
      server.closeAllConnections()
    })
  let closed = false
  const tiny: TinyServer = {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    get hits() {
      return hits
    },
    close: async () => {
      if (closed) return
      closed = true
      await close()
    },
  }
  closers.push(() => tiny.close())
  return tiny
}
