/**
 * `fluxlab serve --ready <url>` (issue 27): serve checks the server's URL itself, when it starts listening, on Playwright's rule,
 * and prints one line on stdout once it answers; `withFluxlab` has Playwright wait for that line. Run as a user runs
 * it: `node dist/cli.js serve … -- node <a tiny server>` in a temp dir, stopped with SIGTERM as Playwright stops it.
 */
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { createServer as createTcpServer, type AddressInfo } from 'node:net'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { withFluxlab } from 'fluxlab/playwright'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { serveOverSocket, treeSocketPath } from '../../src/sources/tree-wire.js'
import { assertBuilt, childEnv, CLI, cleanup, fluxlab, REPO, tempDir } from './support.js'

/**
 * The app: listens `LISTEN_MS` after it starts (never without it), answers `/health` 503 until `READY_MS`, then 200;
 * with `TOOL_URL`, each request it answers first calls that URL (a tool call of whichever run handles it). It says
 * on stdout (the same pipe as serve's) what it did, before it answers.
 */
const SERVER = `import { createServer } from 'node:http'
const t0 = Date.now()
const log = (s) => process.stdout.write('server: ' + s + '\\n')
const server = createServer(async (req, res) => {
  const code = Date.now() - t0 >= Number(process.env.READY_MS ?? 0) ? 200 : 503
  if (process.env.TOOL_URL && code === 200) await (await fetch(process.env.TOOL_URL)).text()
  log(req.method + ' ' + req.url + ' ' + code + (req.headers['x-fluxlab-run'] ? ' (the server\\'s own run)' : ' (no run)'))
  res.writeHead(code).end()
})
if (process.env.LISTEN_MS) setTimeout(() => server.listen(Number(process.env.PORT), '127.0.0.1', () => log('listening')), Number(process.env.LISTEN_MS))
if (process.env.EXIT_MS) setTimeout(() => process.exit(0), Number(process.env.EXIT_MS))
`

const LINE = /^\[fluxlab\] serve: the app server answers at (.*)$/

interface Served {
  code: number | null
  stdout: string[]
  stderr: string
  /** When the ready line came, from the start (ms), if it did. */
  readyAt?: number
  ms: number
}

/** A free port on 127.0.0.1. */
async function freePort(): Promise<number> {
  const s = createTcpServer()
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  const { port } = s.address() as AddressInfo
  await new Promise((r) => s.close(r))
  return port
}

/**
 * `fluxlab serve <args> -- node server.mjs` in `dir`; SIGTERM `afterReadyMs` after the ready line (as Playwright
 * stops its webServer), or left to end by itself.
 */
function serve(dir: string, args: string[], env: Record<string, string>, o: { afterReadyMs?: number; timeoutMs?: number } = {}): Promise<Served> {
  const start = Date.now()
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'serve', ...args, '--', 'node', 'server.mjs'], {
      cwd: dir,
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let stderr = ''
    let readyAt: number | undefined
    child.stdout.on('data', (d: Buffer) => {
      out += d
      if (readyAt === undefined && out.split('\n').some((l) => LINE.test(l))) {
        readyAt = Date.now() - start
        if (o.afterReadyMs !== undefined) setTimeout(() => child.kill('SIGTERM'), o.afterReadyMs)
      }
    })
    child.stderr.on('data', (d: Buffer) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 20_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout: out.split('\n').filter(Boolean), stderr, readyAt, ms: Date.now() - start })
    })
  })
}

describe('fluxlab serve --ready <url>', () => {
  let dir: string
  let tool: Server
  let toolUrl: string
  let toolCalls = 0
  beforeAll(async () => {
    assertBuilt()
    dir = tempDir('flux-serve-ready-')
    writeFileSync(join(dir, 'server.mjs'), SERVER)
    tool = createServer((_, res) => (toolCalls++, res.end('{"ok":true}')))
    await new Promise<void>((r) => tool.listen(0, '127.0.0.1', r))
    toolUrl = `http://127.0.0.1:${(tool.address() as AddressInfo).port}/status`
  })
  afterAll(async () => {
    await new Promise((r) => tool.close(r))
    cleanup()
  })

  test('prints the line once, only after the URL answered ready, and checks nothing more after it', async () => {
    const port = await freePort()
    const url = `http://127.0.0.1:${port}/health`
    const r = await serve(dir, ['--ready', url], { PORT: String(port), LISTEN_MS: '400', READY_MS: '700' }, { afterReadyMs: 400 })
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout
    const ready = lines.flatMap((l, i) => (LINE.test(l) ? [i] : []))
    expect(ready, lines.join('\n')).toHaveLength(1)
    expect(LINE.exec(lines[ready[0]])?.[1]).toBe(url)
    const listening = lines.indexOf('server: listening')
    const answered = lines.findIndex((l) => l.startsWith('server: GET /health 200'))
    // the server listened, answered 503 while it warmed up (not ready), then 200, and only then came the line
    expect(listening, lines.join('\n')).toBeGreaterThanOrEqual(0)
    expect(
      lines.slice(listening + 1, answered).some((l) => l.startsWith('server: GET /health 503')),
      lines.join('\n'),
    ).toBe(true)
    expect(answered).toBeLessThan(ready[0])
    // once ready, serve asked nothing more (400 ms went by before the SIGTERM)
    expect(lines.filter((l) => l.startsWith('server: GET')).at(-1)).toBe(lines[answered])
    expect(lines.filter((l) => l.startsWith('server: GET /health 200'))).toHaveLength(1)
    // a check that got an answer is one a health check of Playwright's gets too: not every 20 ms while it warms up
    expect(lines.filter((l) => l.startsWith('server: GET /health 503')).length).toBeLessThanOrEqual(6)
  })

  test("is the line withFluxlab has Playwright wait for (the entry's wait.stdout)", async () => {
    const port = await freePort()
    const r = await serve(dir, ['--ready', `http://127.0.0.1:${port}/health`], { PORT: String(port), LISTEN_MS: '100' }, { afterReadyMs: 0 })
    const wait = withFluxlab({ command: 'node server.mjs', url: `http://127.0.0.1:${port}/health` }).wait
    expect(wait?.stdout?.test(r.stdout.join('\n'))).toBe(true)
    expect(wait?.stdout?.test(r.stdout.filter((l) => !LINE.test(l)).join('\n'))).toBe(false)
  })

  test('never prints the line for a server that never answers, and ends with it', async () => {
    const port = await freePort()
    const r = await serve(dir, ['--ready', `http://127.0.0.1:${port}/health`], { PORT: String(port), EXIT_MS: '1200' })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.filter((l) => LINE.test(l))).toEqual([])
    // it stopped checking when the server exited: serve did not outlive it by much
    expect(r.ms).toBeLessThan(6000)
  })

  test('never prints the line for a server that answers, but never ready (503)', async () => {
    const port = await freePort()
    const r = await serve(dir, ['--ready', `http://127.0.0.1:${port}/health`], { PORT: String(port), LISTEN_MS: '100', READY_MS: '100000', EXIT_MS: '1500' })
    expect(r.stdout.filter((l) => LINE.test(l))).toEqual([])
    expect(r.stdout.filter((l) => l.startsWith('server: GET /health 503')).length).toBeGreaterThan(0)
  })

  // What the check adds to the server's own scenario, and to the run summary: what one health check of Playwright's
  // adds. It reaches the app with no test's address (the server's own run, as Playwright's check does), so what the
  // app does for it is the server's own; serve's own request is no call of any run (serve's process is not
  // intercepted); and only the check that found the server ready reached the app.
  test("adds to the server's own scenario and to the summary only what the app does for one health check", async () => {
    const port = await freePort()
    const facts = join(dir, 'facts-quiet.jsonl')
    const quiet = await serve(
      dir,
      ['--ready', `http://127.0.0.1:${port}/health`],
      { PORT: String(port), LISTEN_MS: '300', FLUX_FACTS_FILE: facts },
      { afterReadyMs: 300 },
    )
    expect(quiet.code, quiet.stderr).toBe(0)
    expect(quiet.stdout.filter((l) => l.startsWith('server: GET'))).toEqual(["server: GET /health 200 (the server's own run)"])
    // an app that does nothing for it: no scenario of its own, nothing for the summary, nothing said
    expect(existsSync(join(dir, 'tests/scenarios/app-server'))).toBe(false)
    expect(existsSync(facts) ? readFileSync(facts, 'utf8') : '').toBe('')
    expect(quiet.stderr).not.toMatch(/made \d+ call/)

    // an app whose health route calls a tool: that one call, the server's own, as under one check of Playwright's
    const port2 = await freePort()
    const facts2 = join(dir, 'facts-tool.jsonl')
    const calls = toolCalls
    const busy = await serve(
      dir,
      ['--ready', `http://127.0.0.1:${port2}/health`],
      { PORT: String(port2), LISTEN_MS: '300', TOOL_URL: toolUrl, FLUX_FACTS_FILE: facts2 },
      { afterReadyMs: 300 },
    )
    expect(busy.code, busy.stderr).toBe(0)
    expect(toolCalls - calls).toBe(1)
    expect(busy.stderr).toMatch(/the app server made 1 call outside every test's browser request \(GET 127\.0\.0\.1:\d+\/status\)/)
    expect(readFileSync(facts2, 'utf8').trim().split('\n')).toHaveLength(1)
  })

  test('refuses a --ready that is neither a URL nor a port, naming what it takes', async () => {
    const r = await fluxlab(['serve', '--ready', 'localhost:3000', '--', 'node', 'server.mjs'], { cwd: dir })
    expect(r.code).toBe(64)
    expect(r.stderr).toContain('--ready takes the webServer\'s `url` (http://127.0.0.1:3000/health) or its `port` (3000), not "localhost:3000"')
    expect(r.stderr).toContain('See `fluxlab serve --help`')
  })
})

// Issue 39 (bench section 6): serve checks `--ready` when a server of its tree starts listening, rather than every 20 ms
// from the start. The preload, loaded into the server by serve, says so at the tree's socket.
describe("the preload in serve's server", () => {
  test('says at the tree socket when the server starts listening, after its hello', async () => {
    assertBuilt()
    const dir = tempDir('flux-serve-listening-')
    writeFileSync(join(dir, 'server.mjs'), SERVER)
    const path = treeSocketPath(dir, 'tree')
    const heard: string[] = []
    const tree = serveOverSocket(path, async () => undefined, { contact: () => heard.push('contact'), listening: () => heard.push('listening') })
    try {
      const port = await freePort()
      const server = spawn(process.execPath, ['--import', pathToFileURL(join(REPO, 'dist/preload.js')).href, 'server.mjs'], {
        cwd: dir,
        env: childEnv({
          FLUX_TREE: path,
          FLUX_TREE_TOKEN: '0123456789abcdef0123456789abcdef',
          FLUX_SERVE: '1',
          PORT: String(port),
          LISTEN_MS: '300',
          EXIT_MS: '1500',
        }),
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let out = ''
      server.stdout.on('data', (d: Buffer) => (out += d))
      server.stderr.on('data', (d: Buffer) => (out += d))
      const code = await new Promise((r) => server.on('close', r))
      expect(code, out).toBe(0)
      expect(out).toContain('server: listening')
      // the hello at its start, then the word when it listened (each is a contact)
      expect(heard).toEqual(['contact', 'contact', 'listening'])
    } finally {
      tree.close()
    }
  })
})
