/**
 * `fluxlab serve [--name N] [--dir D] -- <cmd…>` (issue 27): run an app server (a Playwright `webServer`) as one
 * process tree under fluxlab. The server's requests go, over the tree's socket, to the run of the Playwright test
 * whose browser request it is handling (the address that request carries: src/interceptor/server-requests.ts), and
 * everything it does outside any test's request (start-up, warm-up) to the server's own scenario, `app-server` by
 * default: recorded when its fixture is missing and recording is allowed, replayed when it exists, refused under CI.
 */
import { spawn } from 'node:child_process'
import { resolve } from 'node:path'
import { fixtureExists, readFixture } from '../../cassette/fixture.js'
import { fileKeyVars } from '../../context/file-keys.js'
import { keysFrom } from '../../context/options.js'
import { missingKeyVars, replayKeyFor } from '../../context/replay-keys.js'
import { FluxError } from '../../errors.js'
import { readFlag, readGolden, updateStateFromEnv } from '../../golden/update-mode.js'
import { isProviderRequest } from '../../providers/registry.js'
import { refusalRun } from '../../scenario/refusals.js'
import { admitTo } from '../../scenario/router.js'
import { childEnv } from '../../scenario/tree.js'
import type { Run } from '../../scenario/run.js'
import { parse, splitCommand } from '../args.js'
import { attachScenario, type Attached } from '../attach.js'
import { fixtureRoot, loadConfig } from '../config.js'
import { CliError, EXIT, usage } from '../errors.js'
import { display } from '../fixtures.js'
import type { Output } from '../output.js'

/**
 * Start the server under fluxlab and return its exit code when it exits (a signal to `serve` is passed on to it).
 * @example
 * await serveCommand(['--', 'node', 'server.mjs'], out)
 */
export async function serveCommand(argv: string[], out: Output): Promise<number> {
  const { own, command } = splitCommand(argv)
  const { values, positionals } = parse('serve', own, { name: { type: 'string' }, dir: { type: 'string' }, config: { type: 'string' } })
  if (positionals.length) throw usage('serve', `unexpected ${JSON.stringify(positionals[0])}: put the server's command after \`--\`, e.g. \`fluxlab serve -- npm run start\``)
  if (!command?.length) throw usage('serve', 'serve needs the server to run after `--`, e.g. `fluxlab serve -- npm run start`')
  const { options } = await loadConfig(values.config)
  const root = fixtureRoot(values.dir, options)
  const name = values.name ?? 'app-server'
  const dir = resolve(root, name)
  const offline = readFlag('FLUX_OFFLINE')
  const cmdline = `npx fluxlab serve${values.name ? ` --name ${values.name}` : ''}${values.dir ? ` --dir ${values.dir}` : ''} -- ${command.join(' ')}`
  const replay = fixtureExists(dir) && readGolden() !== 'update'
  const canRecord = !offline && updateStateFromEnv() !== 'none'
  const fixture = replay ? readFixture(dir, { disable: options.redact?.disable }) : undefined
  const attached = replay || canRecord ? attachScenario({ name, dir, mode: replay ? 'replay' : 'record', fixture, options, offline, input: { command }, command: cmdline }) : undefined
  const run: Run = attached?.run ?? serverRefusal(name, dir, cmdline, options.hosts ?? {})
  const tree = childEnv(run, command.join(' '), (r, request) => admitTo(r, request))
  if (!tree) throw new CliError(EXIT.error, { failed: `serve ${command.join(' ')}`, reason: "fluxlab's interception preload (dist/preload.js) is missing", fix: 'Reinstall fluxlab (or run `npm run build` in a checkout of fluxlab)' })

  const env: NodeJS.ProcessEnv = { ...tree.defaults, ...process.env, ...tree.env, FLUX_SERVE: '1' }
  const inherited = (env.NODE_OPTIONS ?? '').replace(/--import[= ]\S*preload\.js/g, '').trim()
  env.NODE_OPTIONS = `${inherited} --import ${tree.preload}`.trim()
  // SPEC §2: a server built at import (`new OpenAI()` at the top of a route module) starts on replay with no key: it gets
  // placeholders for the key variables the project's fixtures carried, where they are unset.
  // @note read from the manifests alone (no fixture is parsed): the server starts as soon as it would without fluxlab.
  const keyVars = [...keysFrom(options), ...fileKeyVars(root, process.cwd(), '(app server)', { suite: true }).keyVars]
  for (const k of missingKeyVars(env, keyVars)) env[k] = replayKeyFor(k)

  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((done) => {
    const child = spawn(command[0], command.slice(1), { stdio: 'inherit', env })
    const forward = (sig: NodeJS.Signals) => () => child.kill(sig)
    const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((sig) => [sig, forward(sig)] as const)
    for (const [sig, f] of handlers) process.on(sig, f)
    const end = (r: { code: number | null; signal: NodeJS.Signals | null; error?: Error }) => {
      for (const [sig, f] of handlers) process.off(sig, f)
      done(r)
    }
    child.on('error', (error) => end({ code: null, signal: null, error }))
    child.on('exit', (code, signal) => end({ code, signal }))
  })
  if (exit.error) throw new CliError(EXIT.error, { failed: `serve ${command.join(' ')}`, reason: `the server could not be started: ${exit.error.message}`, fix: 'Check the command after `--`' })
  // Stopped by a signal (Playwright stops its webServer so) is how a server ends: its own scenario is settled then.
  const stopped = exit.signal !== null || exit.code === 143 || exit.code === 130
  return settle(attached, run, { name, dir, failed: !stopped && exit.code !== 0, out, code: exit.code ?? 0 })
}

/** The server's own scenario at its end: written when it recorded calls, its divergences said. */
async function settle(attached: Attached | undefined, run: Run, o: { name: string; dir: string; failed: boolean; out: Output; code: number }): Promise<number> {
  if (!attached) {
    await run.close()
    if (run.log.fatal) o.out.error(run.log.fatal.message)
    return o.failed ? o.code : run.log.fatal ? EXIT.error : EXIT.ok
  }
  const r = await attached.finish({ programFailed: o.failed })
  if (r.steps.length) o.out.note(`fluxlab serve: the app server made ${r.steps.length} call${r.steps.length === 1 ? '' : 's'} outside every test's browser request (${r.steps.map((s) => (s.channel === 'model' ? `${s.cell.family} ${s.cell.model ?? ''}`.trim() : s.cell.name)).join(', ')}), ${o.failed ? 'not written' : r.mode === 'replay' ? 'replayed from' : r.saved ? 'recorded into' : 'not recorded into'} its own scenario ${display(o.dir)}/`)
  if (r.fatal) o.out.error(r.fatal.message)
  for (const w of r.warnings) o.out.warn(`warning: ${o.name} ${w.step} ${w.code}: ${w.message}`)
  for (const f of r.failures) o.out.error(`${o.name} ${f.step} ${f.code}: ${f.message}`)
  if (o.failed) return o.code
  return r.fatal ? EXIT.error : r.failures.length ? EXIT.diverged : EXIT.ok
}

/** Under CI (or FLUX_OFFLINE) with no fixture of its own, the server's calls outside any test's request are refused. */
function serverRefusal(name: string, dir: string, cmdline: string, hosts: Parameters<typeof isProviderRequest>[2]): Run {
  const toProvider = (method: string, url: URL) => isProviderRequest(method, url, hosts)
  return refusalRun(name, {
    claims: (method, url) => readFlag('FLUX_OFFLINE') || toProvider(method, url),
    preempts: toProvider,
    error: (request) =>
      new FluxError('FLUX_NO_RECORDING', {
        failed: `send ${request.method} ${new URL(request.url).host}${new URL(request.url).pathname} from the app server, outside every test's browser request`,
        reason: `the server's own scenario has no fixture at ${display(dir)} and recording is off here (CI or FLUX_OFFLINE)`,
        fix: `Record it where a key is set: ${cmdline} (run the Playwright suite without CI), or make the call while handling a test's request`,
      }),
    refused: (error) => console.warn(error.message),
  })
}
