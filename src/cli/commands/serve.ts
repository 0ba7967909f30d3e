/**
 * `fluxlab serve [--name N] [--dir D] [--ready <url|port>] -- <cmd…>` (issue 27): run an app server (a Playwright
 * `webServer`) as one process tree under fluxlab. The server's requests go, over the tree's socket, to the run of the
 * Playwright test whose browser request it is handling (the address that request carries:
 * src/sources/server-requests.ts), and everything it does outside any test's request (start-up, warm-up) to the
 * server's own scenario, `app-server` by default: recorded when its fixture is missing and recording is allowed,
 * replayed when it exists, refused under CI. With `--ready`, serve says on stdout when the server answers (../ready.ts).
 * Issue 39: serve runs in the Playwright config's directory, which decides the fixture root as it does the tests';
 * the server runs in `--cwd` (the entry's `cwd`, which `withFluxlab()` moves there).
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { tmpdir } from 'node:os'
import { resolve } from 'node:path'
import { fileKeyVars } from '../../context/file-keys.js'
import { keysFrom } from '../../context/options.js'
import { missingKeyVars, replayKeyFor } from '../../context/replay-keys.js'
import { PLAYWRIGHT_DIR_ENV } from '../../sources/server-requests.js'
import { builtFile, treeSocketPath } from '../../sources/tree-wire.js'
import { parse, splitCommand } from '../args.js'
import { loadConfig } from '../config.js'
import { DEFAULT_DIR } from '../../context/options.js'
import { notice } from '../../errors.js'
import { CliError, EXIT, usage } from '../errors.js'
import type { Output } from '../output.js'
import { describeTarget, READY_TEXT, readyTarget, untilReady } from '../ready.js'
import { deathCause, rootMismatch, testsRoot } from '../serve-roots.js'
import { ownScenario, serveSocket } from '../serve-socket.js'

/**
 * Start the server under fluxlab and return its exit code when it exits (a signal to `serve` is passed on to it).
 * @example
 * await serveCommand(['--', 'node', 'server.mjs'], out)
 */
export async function serveCommand(argv: string[], out: Output): Promise<number> {
  const { own, command } = splitCommand(argv)
  const { values, positionals } = parse('serve', own, {
    name: { type: 'string' },
    dir: { type: 'string' },
    config: { type: 'string' },
    cwd: { type: 'string' },
    ready: { type: 'string' },
    'ignore-https-errors': { type: 'boolean' },
  })
  if (positionals.length)
    throw usage('serve', `unexpected ${JSON.stringify(positionals[0])}: put the server's command after \`--\`, e.g. \`fluxlab serve -- npm run start\``)
  if (!command?.length) throw usage('serve', 'serve needs the server to run after `--`, e.g. `fluxlab serve -- npm run start`')
  const ready = values.ready === undefined ? undefined : readyTarget(values.ready, values['ignore-https-errors'] === true)
  if (ready && 'error' in ready) throw usage('serve', ready.error)
  if (values['ignore-https-errors'] && !(ready && 'url' in ready && ready.url.protocol === 'https:'))
    throw usage('serve', "--ignore-https-errors goes with `--ready https://…` (the entry's `ignoreHTTPSErrors`)")
  const cwd = resolve(values.cwd ?? '.')
  // The options file is looked up where serve runs (the Playwright config's directory), then where the server does;
  // its `dir` is read from its own directory, as the other commands read it when run there.
  const here = await loadConfig(values.config)
  const there = here.file || values.config || !values.cwd ? undefined : await loadConfig(undefined, cwd)
  const { options } = there?.file ? there : here
  const root = resolve(values.dir ?? (process.env[PLAYWRIGHT_DIR_ENV] || (options.dir ? resolve(there?.file ? cwd : '.', options.dir) : DEFAULT_DIR)))
  const tests = testsRoot(process.cwd(), process.env)
  const mismatch = rootMismatch(root, tests, process.cwd(), process.env)
  if (mismatch) out.error(mismatch)
  const name = values.name ?? 'app-server'
  const dir = resolve(root, name)
  const flags = (['name', 'dir', 'cwd'] as const).map((f) => (values[f] ? ` --${f} ${values[f]}` : '')).join('')
  const cmdline = `npx fluxlab serve${flags} -- ${command.join(' ')}`
  const preload = builtFile('preload.js')?.href
  if (!preload)
    throw new CliError(EXIT.error, {
      failed: `serve ${command.join(' ')}`,
      reason: "fluxlab's interception preload (dist/preload.js) is missing",
      fix: 'Reinstall fluxlab (or run `npm run build` in a checkout of fluxlab)',
    })
  // @note the server starts first, the engine loads while it does: the address its requests go to is chosen now, and
  // the tree's socket opens there (the preload tries it again for a while).
  const address = { path: treeSocketPath(tmpdir(), `fluxlab-${process.pid}-${randomBytes(4).toString('hex')}`), token: randomBytes(16).toString('hex') }
  const env: NodeJS.ProcessEnv = { ...process.env, FLUX_TREE: address.path, FLUX_TREE_TOKEN: address.token, FLUX_SERVE: '1' }
  if (options.hosts && Object.keys(options.hosts).length) env.FLUX_TREE_HOSTS = JSON.stringify(options.hosts)
  const inherited = (env.NODE_OPTIONS ?? '').replace(/--import[= ]\S*preload\.js/g, '').trim()
  env.NODE_OPTIONS = `${inherited} --import ${preload}`.trim()
  // SPEC §2: a server built at import (`new OpenAI()` at the top of a route module) starts on replay with no key: it gets
  // placeholders for the key variables the project's fixtures carried, where they are unset.
  // @note read from the manifests alone (no fixture is parsed): the server starts as soon as it would without fluxlab.
  const keyVars = [...keysFrom(options), ...fileKeyVars(root, process.cwd(), '(app server)', { suite: true }).keyVars]
  const placeholders = missingKeyVars(env, keyVars)
  for (const k of placeholders) env[k] = replayKeyFor(k)
  // @note the server runs in its own directory: tools that read PWD (not cwd) see it too
  if (values.cwd) env.PWD = cwd

  // Issue 39 (bench section 6): serve listens at the address now, and loads the engine now only when the server's own
  // scenario needs it whatever the server does (a bad flag too: the engine says so); else at its first call (../serve-socket.ts).
  let held: Promise<import('../serve-run.js').ServerRun> | undefined
  const engine = () =>
    (held ??= import('../serve-run.js').then((m) => m.serverRun({ name, dir, options, command, cmdline, address, takeOver: socket.takeOver })))
  // Issue 39: the preload says when a server of the tree starts listening, and the `--ready` check runs then (../ready.ts).
  const listening = new EventTarget()
  const socket = serveSocket(address.path, engine, () => listening.dispatchEvent(new Event('listening')))
  const idle = (() => {
    try {
      const own = ownScenario(dir)
      return !own.replay && !own.canRecord
    } catch {
      return false
    }
  })()
  let stderr = ''
  let answered = false
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((done) => {
    // stderr passes through serve, which keeps its end: the variable a server that dies at import names (never a value)
    const child = spawn(command[0], command.slice(1), { stdio: ['inherit', 'inherit', 'pipe'], env, cwd })
    child.stderr!.on('data', (d: Buffer) => {
      process.stderr.write(d)
      stderr = (stderr + d.toString()).slice(-8192)
    })
    const exited = new AbortController()
    if (ready)
      untilReady(ready, exited.signal, listening).then(
        (yes) => yes && ((answered = true), out.line(notice(`${READY_TEXT} ${describeTarget(ready)}`))),
        (e: Error) =>
          out.error({
            failed: `check whether ${describeTarget(ready)} answers`,
            reason: `an unexpected error: ${e.stack ?? e}`,
            fix: 'This is a bug in fluxlab; please report it. Playwright still finds the server by its own check, at its own pace',
          }),
      )
    if (!idle) void engine().catch(() => {})
    const forward = (sig: NodeJS.Signals) => () => child.kill(sig)
    const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((sig) => [sig, forward(sig)] as const)
    for (const [sig, f] of handlers) process.on(sig, f)
    const end = (r: { code: number | null; signal: NodeJS.Signals | null; error?: Error }) => {
      exited.abort()
      for (const [sig, f] of handlers) process.off(sig, f)
      done(r)
    }
    child.on('error', (error) => end({ code: null, signal: null, error }))
    child.on('exit', (code, signal) => end({ code, signal }))
  })
  if (exit.error)
    throw new CliError(EXIT.error, {
      failed: `serve ${command.join(' ')}`,
      reason: `the server could not be started: ${exit.error.message}`,
      fix: 'Check the command after `--`',
    })
  // Stopped by a signal (Playwright stops its webServer so) is how a server ends: its own scenario is settled then.
  const stopped = exit.signal !== null || exit.code === 143 || exit.code === 130
  if (!stopped && exit.code !== 0 && !answered)
    out.error(deathCause({ code: exit.code, checked: !!ready, root, tests, from: process.cwd(), placeholders, keyVars, stderr, env }))
  const failed = !stopped && exit.code !== 0
  // a refused scenario the server never called has nothing to settle: no fixture, no calls, no facts
  if (!held) return failed ? (exit.code ?? 0) : EXIT.ok
  return (await held).settle({ failed, out, code: exit.code ?? 0 })
}
