import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Divergence } from '../../cassette/divergence.js'
import { fixtureExists, readFixture } from '../../cassette/fixture.js'
import { readFlag, readGolden, updateStateFromEnv } from '../../golden/update-mode.js'
import { keysFrom } from '../../context/options.js'
import { missingKeyVars, replayKeyFor } from '../../context/replay-keys.js'
import { fixtureKeyVars } from '../../scenario/key-vars.js'
import { admitTo } from '../../scenario/router.js'
import { childEnv as treeEnv } from '../../scenario/tree.js'
import { redactMessage } from '../../secrets/redact.js'
import { VERSION } from '../../version.js'
import { parse, splitCommand } from '../args.js'
import { attachScenario, maxBytesFromEnv, type AttachResult } from '../attach.js'
import { fixtureRoot, loadConfig } from '../config.js'
import { CliError, EXIT, usage } from '../errors.js'
import { display } from '../fixtures.js'
import type { Output } from '../output.js'
import type { ChildEnv } from '../../sources/index.js'

type Mode = 'record' | 'replay'

/** `fluxlab record --report` / `FLUX_REPORT` output. Documented in docs/cli.md. */
export interface RunJson {
  schema: 'fluxlab.run/v1'
  fluxlabVersion: string
  scenario: string
  mode: Mode
  /** The fixture directory, relative to the working directory. */
  fixture: string
  /** The program's command line (redacted). */
  command: string[]
  program: { exitCode: number | null; signal: string | null }
  /** The CLI's own exit code (0, 1, 2 or 3). */
  exitCode: number
  hermetic: boolean
  modelLive: number
  /** Record: whether the fixture was written. */
  written: boolean
  /** Replay: how the run's trace compares with trace.snap. */
  trace: AttachResult['trace']
  steps: Array<{ step: string; channel: 'model' | 'tool'; name: string; status?: number }>
  divergences: Array<Pick<Divergence, 'code' | 'severity' | 'step' | 'message' | 'closest'>>
}

/**
 * `fluxlab record <name> -- <cmd…>`: run a Node program under interception and record it.
 * @example
 * await recordCommand(['triage', '--', 'node', 'agent.js'], out) // 0 when recorded
 */
export const recordCommand = (argv: string[], out: Output) => runCommand('record', argv, out)
/**
 * `fluxlab replay <name> -- <cmd…>`: run it against the fixture (0 pass, 1 program failed, 2 diverged).
 * @example
 * await replayCommand(['triage', '--', 'node', 'agent.js'], out)
 */
export const replayCommand = (argv: string[], out: Output) => runCommand('replay', argv, out)

async function runCommand(mode: Mode, argv: string[], out: Output): Promise<number> {
  const { own, command } = splitCommand(argv)
  const { values, positionals } = parse(mode, own, {
    dir: { type: 'string' },
    config: { type: 'string' },
    report: { type: 'string' },
    ...(mode === 'replay' ? { timing: { type: 'string' as const } } : {}),
  })
  const name = positionals[0]
  if (!name) throw usage(mode, `${mode} needs a scenario name, e.g. \`fluxlab ${mode} triage -- node agent.js\``)
  if (positionals.length > 1)
    throw usage(mode, `unexpected ${JSON.stringify(positionals[1])}: put the program after \`--\`, e.g. \`fluxlab ${mode} ${name} -- node agent.js\``)
  if (!command?.length) throw usage(mode, `${mode} needs the program to run after \`--\`, e.g. \`fluxlab ${mode} ${name} -- node agent.js\``)
  if (/^\.\.?$|(^|[\\/])\.\.([\\/]|$)/.test(name) || name.startsWith('/'))
    throw usage(mode, `"${name}" is not a scenario name: use a relative name without "." or ".." segments, like "triage" or "billing/refund"`)

  const { options } = await loadConfig(values.config)
  const timing = parseTiming((values as { timing?: string }).timing)
  const root = fixtureRoot(values.dir, options)
  const dir = resolve(root, name)
  const golden = readGolden()
  const offline = readFlag('FLUX_OFFLINE')
  const cmdline = `npx fluxlab record ${name}${values.dir ? ` --dir ${values.dir}` : ''} -- ${command.join(' ')}`
  maxBytesFromEnv()

  if (mode === 'record') {
    if (fixtureExists(dir) && golden !== 'update')
      throw new CliError(EXIT.error, {
        failed: `record scenario "${name}"`,
        reason: `a fixture already exists at ${display(dir)} and recording never overwrites one silently`,
        fix: `Replay it with \`npx fluxlab replay ${name} -- …\`, or re-record on purpose: FLUX_GOLDEN=update ${cmdline}`,
      })
    if (offline)
      throw new CliError(EXIT.error, {
        failed: `record scenario "${name}"`,
        reason: 'FLUX_OFFLINE=1 forbids live requests, and recording makes them',
        fix: 'Unset FLUX_OFFLINE to record',
      })
  } else if (!fixtureExists(dir))
    throw new CliError(EXIT.error, {
      failed: `replay scenario "${name}"`,
      reason: `there is no fixture at ${display(dir)}`,
      fix: `Record it first: ${cmdline} (or pass --dir <fixture root>)`,
    })

  const fixture = mode === 'replay' ? readFixture(dir, { disable: options.redact?.disable }) : undefined
  const run = attachScenario({
    name,
    dir,
    mode,
    fixture,
    options: { ...options, ...(timing !== undefined ? { timing } : {}) },
    offline,
    input: { command },
    rewriteTrace: golden === 'snapshots',
    writeMissingTrace: updateStateFromEnv() !== 'none',
    command: cmdline,
  })
  // The program is the run's one process tree (src/scenario/tree.ts): it sends every request to this process's socket.
  // @note no origin: the program is the run, so its requests are not named as a child's.
  const tree = treeEnv(run.run, command.join(' '), (r, request) => admitTo(r, request))
  if (!tree)
    throw new CliError(EXIT.error, {
      failed: `${mode} scenario "${name}"`,
      reason: "fluxlab's interception preload (dist/preload.js) is missing",
      fix: 'Reinstall fluxlab (or run `npm run build` in a checkout of fluxlab)',
    })
  const program = await spawnProgram(command, childEnv(mode, name, dir, tree, fixture ? [...fixtureKeyVars(fixture), ...keysFrom(options)] : []))
  const result = await run.finish({ programFailed: program.exitCode !== 0 })
  const exitCode = decide(mode, name, dir, program, result, cmdline, out)
  const reportFile = values.report ?? process.env.FLUX_REPORT
  if (reportFile) writeReport(reportFile, { mode, name, dir, command, program, exitCode, result })
  return exitCode
}

/** Print what happened and pick the exit code (docs/cli.md: 0 pass, 1 program failed, 2 diverged, 3 fluxlab error). */
function decide(
  mode: Mode,
  name: string,
  dir: string,
  program: { exitCode: number | null; signal: NodeJS.Signals | null; spawnError?: Error },
  r: AttachResult,
  cmdline: string,
  out: Output,
): number {
  const how = program.spawnError
    ? `could not be started: ${program.spawnError.message}`
    : program.signal
      ? `was killed by ${program.signal}`
      : `exited with code ${program.exitCode}`
  const failed = program.exitCode !== 0
  if (r.fatal) {
    out.error(r.fatal.message)
    return EXIT.error
  }
  for (const w of r.warnings) out.warn(`warning: ${w.step} ${w.code}: ${w.message}`)
  const n = (k: number, what: string) => `${k} ${what}${k === 1 ? '' : 's'}`
  const counts =
    `${n(r.steps.filter((s) => s.channel === 'model').length, 'model call')}, ` + `${n(r.steps.filter((s) => s.channel === 'tool').length, 'tool call')}`

  if (mode === 'record') {
    if (failed) {
      out.error({
        failed: `record scenario "${name}"`,
        reason: `the program ${how}, so nothing was written`,
        fix: 'Fix the program (its output is above) and record again',
      })
      return EXIT.failed
    }
    if (!r.saved) {
      out.error({
        failed: `record scenario "${name}"`,
        reason: `the program made no HTTP request that fluxlab could see, so there is nothing to replay`,
        fix:
          'Make sure it is a Node program started directly (node …, not through a shell script that resets NODE_OPTIONS), and that it calls a model or a ' +
          'tool over HTTP',
      })
      return EXIT.error
    }
    out.note(`recorded scenario "${name}" into ${display(dir)}/ (${counts}). Commit it; replay with: ${cmdline.replace(' record ', ' replay ')}`)
    return EXIT.ok
  }

  const offTape = r.failures.filter((d) => d.code !== 'unused_interaction')
  const diverged = failed ? offTape.length > 0 : r.failures.length > 0
  if (diverged) {
    out.error({
      failed: `replay scenario "${name}"`,
      reason:
        `the program left the tape at ${r.failures[0].step} (${r.failures[0].code}; ${r.failures.length} failure${r.failures.length > 1 ? 's' : ''} in ` +
        `all)${failed ? ` and ${how}` : ''}; nothing was sent to the network`,
      fix: `If the change is intended, re-record: FLUX_GOLDEN=update ${cmdline}`,
      details: r.failures.map((d) => `${d.step} ${d.code}: ${d.message}`),
    })
    return EXIT.diverged
  }
  if (failed) {
    out.error({
      failed: `replay scenario "${name}"`,
      reason: `the program ${how} while every request it made was served from the tape`,
      fix: "The failure is the program's own: see its output above",
      details: r.failures.map((d) => `${d.step} ${d.code}: ${d.message}`),
    })
    return EXIT.failed
  }
  if (r.trace === 'mismatch') out.warn('warning: the replayed trace differs from trace.snap; see `npx fluxlab test` for the diff')
  if (r.trace === 'updated' || r.trace === 'added') out.note(`trace.snap ${r.trace}`)
  out.note(
    `replayed scenario "${name}" from the tape (${counts}${r.warnings.length ? `, ${n(r.warnings.length, 'warning')}` : ''}): hermetic, nothing reached the ` +
      `network`,
  )
  return EXIT.ok
}

function childEnv(mode: Mode, name: string, dir: string, tree: ChildEnv, keyVars: readonly string[]): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env }
  // @note a file URL needs no quoting in NODE_OPTIONS even when the path has spaces; an earlier copy
  // of our own preload (a nested fluxlab run) is dropped so the process forwards to this CLI only.
  const inherited = (env.NODE_OPTIONS ?? '').replace(/--import[= ]\S*preload\.js/g, '').trim()
  env.NODE_OPTIONS = `${inherited} --import ${tree.preload}`.trim()
  Object.assign(env, tree.env)
  env.FLUX_SCENARIO = name
  env.FLUX_MODE = mode
  env.FLUX_FIXTURE = dir
  // SPEC §2: the program gets placeholders for exactly the key variables its fixture's requests carried.
  if (mode === 'replay') for (const k of missingKeyVars(env, keyVars)) env[k] = replayKeyFor(k)
  return env
}

function spawnProgram(command: string[], env: NodeJS.ProcessEnv): Promise<{ exitCode: number | null; signal: NodeJS.Signals | null; spawnError?: Error }> {
  return new Promise((resolveRun) => {
    const child = spawn(command[0], command.slice(1), { stdio: 'inherit', env })
    const forward = (sig: NodeJS.Signals) => () => child.kill(sig)
    const onInt = forward('SIGINT')
    const onTerm = forward('SIGTERM')
    process.on('SIGINT', onInt)
    process.on('SIGTERM', onTerm)
    const done = (r: { exitCode: number | null; signal: NodeJS.Signals | null; spawnError?: Error }) => {
      process.off('SIGINT', onInt)
      process.off('SIGTERM', onTerm)
      resolveRun(r)
    }
    child.on('error', (e) => done({ exitCode: null, signal: null, spawnError: e }))
    child.on('exit', (exitCode, signal) => done({ exitCode, signal }))
  })
}

function parseTiming(v: string | undefined): 'recorded' | number | undefined {
  if (v === undefined) return undefined
  if (v === 'recorded') return 'recorded'
  const n = Number(v)
  if (v.trim() !== '' && Number.isFinite(n) && n >= 0) return n
  throw usage('replay', `--timing must be "recorded" or a non-negative number, got "${v}"`)
}

function writeReport(
  file: string,
  x: {
    mode: Mode
    name: string
    dir: string
    command: string[]
    program: { exitCode: number | null; signal: string | null }
    exitCode: number
    result: AttachResult
  },
): void {
  let model = 0
  let tool = 0
  const doc: RunJson = {
    schema: 'fluxlab.run/v1',
    fluxlabVersion: VERSION,
    scenario: x.name,
    mode: x.mode,
    fixture: display(x.dir),
    command: x.command.map((a) => redactMessage(a)),
    program: { exitCode: x.program.exitCode, signal: x.program.signal },
    exitCode: x.exitCode,
    hermetic: x.mode === 'replay' && x.result.modelLive === 0 && x.result.failures.length === 0 && !x.result.fatal,
    modelLive: x.result.modelLive,
    written: x.result.saved,
    trace: x.result.trace,
    steps: x.result.steps.map((s) =>
      s.channel === 'model'
        ? { step: `model#${++model}`, channel: 'model' as const, name: s.cell.model ?? s.cell.family, status: s.cell.response.status }
        : { step: `tool#${++tool}`, channel: 'tool' as const, name: s.cell.name, ...(s.cell.response ? { status: s.cell.response.status } : {}) },
    ),
    divergences: x.result.divergences.map((d) => ({
      code: d.code,
      severity: d.severity,
      step: d.step,
      message: d.message,
      ...(d.closest ? { closest: d.closest } : {}),
    })),
  }
  writeFileSync(resolve(file), `${JSON.stringify(doc, null, 2)}\n`)
}
