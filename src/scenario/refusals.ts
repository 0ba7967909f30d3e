/**
 * Whole-suite mode's refusals: the runs of requests fluxlab can neither record nor replay where they are made (a
 * model call outside every test file, a `test.concurrent` group it cannot tell apart). Each is a `Run` whose one
 * stage refuses what it claims (`pipeline/refuse.ts`).
 */
import type { FluxOptions } from '../context/options.js'
import { state, type ConcurrentTest } from '../context/state.js'
import type { TestContext } from '../context/types.js'
import { concurrentTestError } from '../context/test-context.js'
import { FluxError } from '../errors.js'
import { readFlag } from '../golden/update-mode.js'
import { acquireInterception } from '../sources/index.js'
import { detectModelCall } from '../providers/registry.js'
import type { Refusal } from './pipeline/index.js'
import { admit } from './router.js'
import { Run, runSettings } from './run.js'

/**
 * A run that can neither record nor replay: it takes only what `refusal` claims, and refuses each request with
 * its own reason (the first is the run's `fatal`).
 * @example
 * const run = refusalRun('(outside tests)', { claims, preempts, error })
 */
export function refusalRun(name: string, refusal: Refusal): Run {
  // @note issue 38: every refusal's run is whole-suite mode's, where the test's own servers are not the network.
  return new Run({ name, dir: '', mode: 'replay', settings: runSettings(state.options, readFlag('FLUX_OFFLINE')), refusal, ownServers: true })
}

/**
 * The run of requests made outside every test file (or after a jest file's scenario ended): model calls are
 * refused with `FLUX_NOT_IN_TEST`, and, under FLUX_OFFLINE, every other request with `FLUX_OFFLINE`; the rest pass.
 * @example
 * state.outside = () => fileDoor(root, updateState) ?? outsideRefusal()
 */
export function outsideRefusal(): Run {
  const hosts = () => state.options.hosts ?? {}
  return refusalRun('(outside tests)', {
    claims: (method, url) => detectModelCall(method, url, hosts()) !== undefined || readFlag('FLUX_OFFLINE'),
    preempts: (method, url) => detectModelCall(method, url, hosts()) !== undefined,
    error: (request) =>
      detectModelCall(request.method, new URL(request.url), hosts())
        ? new FluxError('FLUX_NOT_IN_TEST', {
            failed: `send ${requestName(request)}`,
            reason:
              'it is a model call made outside every test file (or after its file scenario ended, in a jest afterAll), which whole-suite mode neither ' +
              'records nor sends live',
            fix: 'Make the call inside a test, or inside `scenario(name).run(agent)` in a beforeAll.',
          })
        : offlineError(request, 'outside every test file'),
    refused: (error) => console.warn(error.message),
  })
}

/** The `test.concurrent` tests running now under a runner without per-test async context. */
export interface ConcurrentGroup {
  /** A concurrent test starts (its beforeEach). */
  enter(test: TestContext): void
  /** It ends (its afterEach): the refusal it must fail with, if a model call was refused while it ran. */
  leave(test: TestContext): FluxError | undefined
  /** One of the running concurrent tests, for scenario() to refuse in. */
  running(): TestContext | undefined
}

/**
 * `test.concurrent` where tests cannot be told apart (vitest < 4.1 has no `aroundEach`). In whole-suite mode a
 * model call made outside every `Scenario.run` while any of them runs is refused (never recorded into, or
 * replayed from, the wrong test's scenario), and every concurrent test running then fails with the reason.
 * Other HTTP passes through.
 * @example
 * const group = concurrentGroup(state.options, (name) => ({ runner: 'vitest', name, why, fix }), (test) => coversTest(test, state.options))
 */
export function concurrentGroup(options: FluxOptions, describe: (name: string) => ConcurrentTest, covered: (test: TestContext) => boolean): ConcurrentGroup {
  const tests = new Map<TestContext, FluxError | undefined>()
  let release: (() => void) | undefined
  const model = (method: string, url: URL) => detectModelCall(method, url, options.hosts ?? {}) !== undefined
  const run = refusalRun('(concurrent tests)', {
    claims: (method, url) => model(method, url) || readFlag('FLUX_OFFLINE'),
    preempts: model,
    error(request) {
      if (!model(request.method, new URL(request.url))) return offlineError(request, 'in a concurrent test')
      const names = [...tests.keys()].map((t) => t.testName)
      return concurrentTestError(describe(names.join('", "')), `send ${requestName(request)} from one of the concurrent tests "${names.join('", "')}"`)
    },
    refused: (error) => {
      // Said where it happened too: the tests fail with it only when they end.
      if (error.code === 'FLUX_CONCURRENT_TEST') console.warn(error.message)
      for (const t of tests.keys()) tests.set(t, tests.get(t) ?? error)
    },
  })
  return {
    enter(test) {
      tests.set(test, undefined)
      if (release || !covered(test)) return
      const stop = acquireInterception(admit)
      state.attached = run
      release = () => {
        if (state.attached === run) state.attached = undefined
        stop()
      }
    },
    leave(test) {
      const refused = tests.get(test)
      tests.delete(test)
      if (tests.size === 0) {
        release?.()
        release = undefined
      }
      return refused
    },
    running: () => tests.keys().next().value,
  }
}

/**
 * SPEC §2: FLUX_OFFLINE=1 forbids every live request; this one would have gone to the network. Named only when it is
 * set (issue 38): a run that refuses for another reason (no fixture where recording is off) says that instead.
 * `noFixture`: the test has no fixture where recording is off (CI), which is the cause even under FLUX_OFFLINE, so its
 * fixture's place and the command that records it are named (found in the field corpus: an MCP server's first message,
 * refused as `FLUX_OFFLINE … POST server/`, hid the test's missing fixture).
 */
export function offlineError(request: Request, where: string, noFixture?: { dir: string; record: string }): FluxError {
  const offline = readFlag('FLUX_OFFLINE')
  const failed = `send ${requestName(request)} ${where}`
  if (noFixture)
    return new FluxError('FLUX_NO_RECORDING', {
      failed,
      reason:
        `there is no fixture at ${noFixture.dir} and recording is off here (CI or --ci)` +
        `${offline ? '; FLUX_OFFLINE=1 forbids every live request, this one too' : ', and no app mock answered this request'}`,
      fix: `Record the test where provider keys are available with \`${noFixture.record}\` and commit ${noFixture.dir}/ (a test that fails while recording writes none).`,
    })
  return new FluxError(offline ? 'FLUX_OFFLINE' : 'FLUX_NO_RECORDING', {
    failed,
    reason:
      `${offline ? 'FLUX_OFFLINE=1 forbids every live request' : 'recording is off here (CI or --ci)'}, and no fixture answers this one (no app mock ` +
      `answered either)`,
    fix:
      `${offline ? 'Unset FLUX_OFFLINE and record' : 'Record'} the test where the network is reachable and commit its fixture; or mock the request in the ` +
      `test.`,
  })
}

/**
 * `POST api.openai.com/v1/chat/completions`: a request as messages name it; a message to an MCP server over stdio
 * (src/sources/mcp-transport.ts: `stdio://<server>/`) as `an MCP message to the stdio server <server>`.
 */
function requestName(request: Request): string {
  const url = new URL(request.url)
  return url.protocol === 'stdio:' ? `an MCP message to the stdio server ${url.host}` : `${request.method} ${url.host}${url.pathname}`
}
