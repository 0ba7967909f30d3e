/**
 * The engine half of `fluxlab serve` (./commands/serve.ts), loaded while the server starts when the server's own
 * scenario replays or may record, else on its first call (./serve-socket.ts): the server's own run (its calls outside
 * every test's request), taking over serve's socket at the address the server was given, and what is said about it
 * when the server stops.
 */
import { readFixture } from '../cassette/fixture.js'
import { relative, resolve } from 'node:path'
import type { FluxOptions } from '../context/options.js'
import type { TestContext } from '../context/types.js'
import { APP_SERVER, appendFacts, collectFacts } from '../reporter/facts.js'
import { FluxError } from '../errors.js'
import { readFlag } from '../golden/update-mode.js'
import { isProviderRequest } from '../providers/registry.js'
import { refusalRun } from '../scenario/refusals.js'
import { admitTo } from '../scenario/router.js'
import type { Run } from '../scenario/run.js'
import { childEnv } from '../scenario/tree.js'
import { attachScenario, type Attached } from './attach.js'
import { EXIT } from './errors.js'
import { display } from './fixtures.js'
import type { Output } from './output.js'
import { ownScenario, type ServeSocket } from './serve-socket.js'

/** The server's own run, taking the server's requests at `address`; `settle` when the server exited. */
export interface ServerRun {
  settle(o: { failed: boolean; out: Output; code: number }): Promise<number>
}

/**
 * Open the server's own scenario: replayed when its fixture exists, recorded when recording is allowed, else refused.
 * @example
 * const held = serverRun({ name: 'app-server', dir, options, command, cmdline, address, takeOver: socket.takeOver })
 */
export function serverRun(o: {
  name: string
  dir: string
  options: FluxOptions
  command: string[]
  cmdline: string
  address: { path: string; token: string }
  /** serve's listener at `address` (./serve-socket.ts), which the tree takes over. */
  takeOver: ServeSocket['takeOver']
}): ServerRun {
  const { offline, replay, canRecord } = ownScenario(o.dir)
  const fixture = replay ? readFixture(o.dir, { disable: o.options.redact?.disable }) : undefined
  const attached =
    replay || canRecord
      ? attachScenario({
          name: o.name,
          dir: o.dir,
          mode: replay ? 'replay' : 'record',
          fixture,
          options: o.options,
          offline,
          input: { command: o.command },
          command: o.cmdline,
        })
      : undefined
  const run: Run = attached?.run ?? serverRefusal(o.name, o.dir, o.cmdline, o.options.hosts ?? {})
  const report = summaryReport(run, o.dir, replay, o.options)
  // Each call the server makes outside every test's request is reported to the summary when it is answered: Playwright
  // does not wait for the server's end, so what is said only then could come after the summary.
  childEnv(
    run,
    o.command.join(' '),
    (r, request) => {
      const admitted = admitTo(r, request)
      return admitted && { ...admitted, answer: () => admitted.answer().finally(report) }
    },
    { ...o.address, takeOver: o.takeOver },
  )
  return {
    async settle(end) {
      const code = await settle(attached, run, { ...end, name: o.name, dir: o.dir })
      report()
      return code
    },
  }
}

/**
 * What the Playwright summary reporter counts of the server's own scenario (src/reporter/playwright-reporter.ts names
 * the facts file in the environment the server inherits): all it did so far, as whole-suite mode's file scenarios.
 */
function summaryReport(run: Run, dir: string, replay: boolean, options: FluxOptions): () => void {
  const ctx: TestContext = {
    runner: 'playwright',
    testName: APP_SERVER,
    testFile: resolve(`(${APP_SERVER})`),
    rootDir: process.cwd(),
    updateState: 'none',
    runs: [run],
    opened: new Set(replay ? [dir] : []),
    fileLevel: true,
  }
  // @note a server that made no call of its own is no scenario of the run
  return () => {
    if (run.log.entries.length + run.log.divergences.length > 0 || run.log.fatal)
      appendFacts({ ...collectFacts(ctx, { dir: relative(process.cwd(), resolve(dir, '..')), pricing: options.pricing }), fileLevel: true })
  }
}

/** The server's own scenario at its end: written when it recorded calls, its divergences said. */
async function settle(attached: Attached | undefined, run: Run, o: { name: string; dir: string; failed: boolean; out: Output; code: number }): Promise<number> {
  if (!attached) {
    await run.close()
    if (run.log.fatal) o.out.error(run.log.fatal.message)
    return o.failed ? o.code : run.log.fatal ? EXIT.error : EXIT.ok
  }
  const r = await attached.finish({ programFailed: o.failed })
  if (r.steps.length) {
    const calls = r.steps.map((s) => (s.channel === 'model' ? `${s.cell.family} ${s.cell.model ?? ''}`.trim() : s.cell.name)).join(', ')
    const fate = o.failed ? 'not written' : r.mode === 'replay' ? 'replayed from' : r.saved ? 'recorded into' : 'not recorded into'
    const n = r.steps.length
    const made = `the app server made ${n} call${n === 1 ? '' : 's'} outside every test's browser request`
    o.out.note(`fluxlab serve: ${made} (${calls}), ${fate} its own scenario ${display(o.dir)}/`)
  }
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
