/**
 * The servers of this process tree (issue 38 items 3 and 9): the TCP ports a process of the tree listens on. A test's
 * own server (an `http.createServer().listen(0)` in its `beforeAll`, a local MCP server it spawned) is not the
 * network, and whole-suite mode lets requests to it pass (`src/scenario/router.ts`).
 *
 * Every `net.Server` (so `node:http`, `node:https`, Express, an MCP server) listens through `net.Server.prototype.listen`,
 * which is where a port is noted: in this process's memory, and, in a process of a tree (`FLUX_TREE_PORTS`), as an
 * empty file named after the port in the tree's directory, written synchronously, so the process holding the tape
 * knows the port before anyone could learn it from the child. A fixed port is noted before it is bound (a readiness
 * poll that races the bind finds it), a random one as soon as it is bound; each is forgotten when its server closes.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { connect, Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

interface Registry {
  /** The port each listening server of this process holds. */
  servers: Map<Server, number>
  /** The directories of the trees this process reads (its own children's ports) or writes to (as a child). */
  dirs: Set<string>
  /** Where this process notes its own ports for the process that holds its tape, when it is a child of a tree. */
  writeTo?: string
}

// @note on globalThis: two copies of the library (ESM and CJS) share one registry, as they share one patch.
const KEY = Symbol.for('fluxlab.own-servers.v1')
const reg: Registry = ((globalThis as Record<symbol, Registry | undefined>)[KEY] ??= { servers: new Map(), dirs: new Set() })

/** The port a `listen(…)` call asks for before it binds: `listen(8001)`, `listen('8001')`, `listen({ port: 8001 })`; 0 for none. */
function askedPort(args: unknown[]): number {
  const first = args[0]
  const port = typeof first === 'object' && first !== null && 'port' in first ? (first as { port?: unknown }).port : first
  const n = typeof port === 'number' ? port : typeof port === 'string' && /^\d+$/.test(port) ? Number(port) : 0
  return Number.isInteger(n) && n > 0 && n < 65536 ? n : 0
}

/** The file of `port` in the tree this process writes to. */
const portFile = (port: number) => (reg.writeTo ? join(reg.writeTo, String(port)) : undefined)

/** Files this process created (a fixed port noted before a bind that then failed must not remove another's). */
const created = new Set<number>()

function note(server: Server, port: number): void {
  if (reg.servers.get(server) === port) return
  forget(server)
  reg.servers.set(server, port)
  const file = portFile(port)
  if (!file) return
  try {
    writeFileSync(file, '', { flag: 'wx' })
    created.add(port)
  } catch {
    // noted already by another process of the tree (a server that closed and left it), or the directory is gone
  }
}

function forget(server: Server): void {
  const port = reg.servers.get(server)
  if (port === undefined) return
  reg.servers.delete(server)
  const file = portFile(port)
  if (file && created.delete(port) && ![...reg.servers.values()].includes(port)) rmSync(file, { force: true })
}

const watched = new WeakSet<Server>()

/**
 * Patch `net.Server.prototype.listen` so every TCP port a server of this process listens on is noted while it listens.
 * `writeTo`: the tree directory this process notes its ports in for the process holding its tape (a preloaded child).
 * Returns the undo.
 * @example
 * const undo = attachOwnServers(process.env.FLUX_TREE_PORTS)
 */
export function attachOwnServers(writeTo?: string): () => void {
  if (writeTo) reg.writeTo = writeTo
  const proto = Server.prototype as unknown as Record<'listen', (this: Server, ...args: unknown[]) => Server>
  const original = proto.listen
  const patched = function noteListen(this: Server, ...args: unknown[]): Server {
    const asked = askedPort(args)
    if (asked) note(this, asked)
    if (!watched.has(this)) {
      watched.add(this)
      this.on('listening', () => {
        const address = this.address()
        if (address && typeof address === 'object') note(this, address.port)
      })
      this.on('close', () => forget(this))
      this.on('error', () => !this.listening && forget(this))
    }
    return original.apply(this, args)
  }
  proto.listen = patched
  return () => {
    // @note only our own patch is undone: one made over it since stays.
    if (proto.listen === patched) proto.listen = original
  }
}

/**
 * Read (and answer for) the ports the processes of a tree note in `dir`; `undefined` makes a fresh directory for a new
 * tree. Returns the directory and the undo (which removes it).
 * @example
 * const { dir, close } = readTreePorts()
 */
export function readTreePorts(dir = join(tmpdir(), `fluxlab-ports-${process.pid}-${Math.random().toString(36).slice(2)}`)): { dir: string; close(): void } {
  mkdirSync(dir, { recursive: true })
  reg.dirs.add(dir)
  return {
    dir,
    close() {
      reg.dirs.delete(dir)
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * Remove what processes of trees that are gone left in `dir`: `fluxlab-<pid>-….sock` sockets and `fluxlab-ports-<pid>-…`
 * directories whose process no longer runs. A runner ends its workers without an `exit` event (vitest's pool, a killed
 * jest worker), so each tree also sweeps up after the dead ones when it opens.
 * @example
 * sweepDeadTrees(tmpdir())
 */
export function sweepDeadTrees(dir: string): void {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return
  }
  for (const name of names) {
    const pid = /^fluxlab-(?:ports-)?(\d+)-[0-9a-z]+(?:\.sock)?$/.exec(name)?.[1]
    if (pid && Number(pid) !== process.pid && !alive(Number(pid))) rmSync(join(dir, name), { recursive: true, force: true })
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\]|0\.0\.0\.0|\[::\])$/i

/**
 * Whether `url` is a loopback address (`localhost`, `127.0.0.1`, `[::1]`): a server of this machine, not the network.
 * @example
 * isLoopback(new URL('http://localhost:8001/mcp')) // true
 */
export function isLoopback(url: URL): boolean {
  return LOOPBACK.test(url.hostname)
}

/** The port a request to `url` connects to. */
const portOf = (url: URL) => Number(url.port || (url.protocol === 'https:' ? 443 : 80))

/**
 * Whether `url` goes to a server of this process tree: a loopback address whose port a server of this process, or of a
 * process of its tree, listens on now.
 * @example
 * isOwnServer(new URL(`http://127.0.0.1:${port}/health`)) // true while this process's server listens on `port`
 */
export function isOwnServer(url: URL): boolean {
  if (!isLoopback(url)) return false
  const port = portOf(url)
  for (const p of reg.servers.values()) if (p === port) return true
  for (const dir of reg.dirs) if (existsSync(join(dir, String(port)))) return true
  return false
}

/**
 * Whether nothing listens at the loopback address of `url` now (a connection to it is refused): a readiness poll of a
 * server the test is still starting. Resolves `false` for anything that answers or does not refuse within a second.
 * @example
 * if (await nothingListens(new URL('http://127.0.0.1:8001/mcp'))) return undefined // the client meets the refusal itself
 */
export function nothingListens(url: URL): Promise<boolean> {
  return new Promise((resolve) => {
    const host = url.hostname.replace(/^\[|\]$/g, '')
    const socket = connect({ host: host === '0.0.0.0' || host === '::' ? 'localhost' : host, port: portOf(url) })
    const done = (refused: boolean) => {
      socket.destroy()
      resolve(refused)
    }
    socket.setTimeout(1000, () => done(false))
    socket.once('connect', () => done(false))
    socket.once('error', (e: NodeJS.ErrnoException) => done(e.code === 'ECONNREFUSED'))
  })
}
