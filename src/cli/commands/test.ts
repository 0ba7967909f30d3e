import { readGolden } from '../../golden/update-mode.js'
import { formatMessage } from '../../errors.js'
import { VERSION } from '../../version.js'
import { parse } from '../args.js'
import { fixtureRoot, loadConfig } from '../config.js'
import { CliError, EXIT } from '../errors.js'
import { display, findFixtures, requireFixture } from '../fixtures.js'
import type { Output } from '../output.js'
import { acceptEdits } from '../accept.js'
import { verifyFixture, type FixtureReport } from '../verify.js'

/** `fluxlab test --json` output. Documented in README "The fluxlab CLI"; additions only within `v1`. */
export interface TestJson {
  schema: 'fluxlab.test/v1'
  fluxlabVersion: string
  /** The fixture root that was searched, relative to the working directory. */
  root: string
  ok: boolean
  summary: { fixtures: number; passed: number; failed: number; problems: number; tracesWritten: number }
  fixtures: FixtureReport[]
  /** `--accept`: the lines whose edits were accepted (`file:line`; empty when none was edited). */
  accepted?: string[]
  /** Set when the command could not verify anything (no fixtures, unknown scenario, bad config). */
  error?: { exitCode: number; message: string }
}

/**
 * `fluxlab test [name] [--dir D] [--json] [--accept name]`: verify fixtures offline; `--accept` first rewrites the
 * digests of a scenario's hand-edited cells.
 * @example
 * await testCommand(['capital', '--json'], out) // 0 when every fixture checks out
 */
export async function testCommand(argv: string[], out: Output): Promise<number> {
  const { values, positionals } = parse('test', argv, {
    dir: { type: 'string' },
    config: { type: 'string' },
    json: { type: 'boolean' },
    accept: { type: 'string' },
  })
  const accept = values.accept
  if (accept !== undefined && positionals.length && positionals[0] !== accept)
    throw new CliError(EXIT.usage, {
      failed: 'read the command line',
      reason: `--accept ${accept} names another scenario than ${positionals[0]}`,
      fix: 'Pass one scenario: `fluxlab test --accept <scenario>`.',
    })
  if (positionals.length > 1)
    throw new CliError(EXIT.usage, {
      failed: 'read the command line',
      reason: `test takes one scenario name, got ${positionals.length}`,
      fix: 'See `fluxlab test --help`.',
    })
  const json = values.json === true
  let root = ''
  try {
    const { options } = await loadConfig(values.config)
    root = fixtureRoot(values.dir, options)
    const golden = readGolden()
    const only = positionals[0] ?? accept
    let accepted: string[] | undefined
    if (accept !== undefined) {
      accepted = acceptEdits(requireFixture(accept, root), { disable: options.redact?.disable })
      if (!json)
        out.line(
          accepted.length
            ? `${out.c.yellow('↻')} accepted the edits of ${accepted.length} cell${accepted.length > 1 ? 's' : ''} of ${accept} (digests rewritten): ` +
                `${accepted.join(', ')}`
            : `${out.c.dim(`nothing to accept in ${accept}: no cell was edited (digests written for any cell without one)`)}`,
        )
    }
    const dirs = only ? findFixtures(requireFixture(only, root)) : findFixtures(root)
    if (dirs.length === 0)
      throw new CliError(EXIT.error, {
        failed: `verify the fixtures under ${display(root)}`,
        reason: 'no fixtures were found (no directory with scenario.yaml), and an empty gate would pass silently',
        fix: 'Run it where your fixtures are, pass --dir <fixture root> (or "dir" in fluxlab.config.mjs), or record one first',
      })

    const reports: FixtureReport[] = []
    dirs.forEach((dir, i) => {
      if (!json) out.progress(`verifying ${i + 1}/${dirs.length} ${display(dir)}`)
      const report = verifyFixture(dir, { redact: options.redact, normalize: options.normalize, rewriteTrace: golden === 'snapshots' })
      reports.push(report)
      if (!json) printReport(report, out)
    })
    out.clearProgress()

    const failed = reports.filter((r) => !r.ok)
    const problems = reports.reduce((n, r) => n + r.problems.length, 0)
    const written = reports.filter((r) => r.trace === 'updated' || r.trace === 'added').length
    if (json) {
      const doc: TestJson = {
        schema: 'fluxlab.test/v1',
        fluxlabVersion: VERSION,
        root: display(root),
        ok: failed.length === 0,
        summary: { fixtures: reports.length, passed: reports.length - failed.length, failed: failed.length, problems, tracesWritten: written },
        fixtures: reports,
        ...(accepted ? { accepted } : {}),
      }
      out.raw(`${JSON.stringify(doc, null, 2)}\n`)
      return failed.length ? EXIT.failed : EXIT.ok
    }
    out.line()
    if (written) out.line(`${out.c.yellow('↻')} rewrote ${written} trace.snap file${written > 1 ? 's' : ''} from the cells (FLUX_GOLDEN=snapshots)`)
    if (failed.length === 0) {
      out.line(out.c.green(`✓ ${reports.length} fixture${reports.length > 1 ? 's' : ''} verified offline (no network, no key).`))
      return EXIT.ok
    }
    out.error({
      failed: `verify ${failed.length} of ${reports.length} fixture${reports.length > 1 ? 's' : ''}`,
      reason: `${problems} problem${problems > 1 ? 's' : ''}, each listed above with its file:line and fix`,
      fix: 'Fix them as each says, then run `npx fluxlab test` again',
    })
    return EXIT.failed
  } catch (e) {
    if (json && e instanceof CliError) {
      const doc: TestJson = {
        schema: 'fluxlab.test/v1',
        fluxlabVersion: VERSION,
        root: root ? display(root) : '',
        ok: false,
        summary: { fixtures: 0, passed: 0, failed: 0, problems: 0, tracesWritten: 0 },
        fixtures: [],
        error: { exitCode: e.exitCode, message: formatMessage(e.parts) },
      }
      out.raw(`${JSON.stringify(doc, null, 2)}\n`)
    }
    throw e
  }
}

function printReport(r: FixtureReport, out: Output): void {
  const { c } = out
  const label = r.forkOf ? `${r.name.split('/').pop()} ${c.dim(`(fork of ${r.forkOf})`)}` : r.name
  const counts = c.dim(`${r.dir} · ${r.modelCalls} model · ${r.toolCalls} tool`)
  const traceNote = r.trace === 'updated' || r.trace === 'added' ? c.yellow(` · trace.snap ${r.trace}`) : ''
  out.line(`${r.ok ? c.green('✓') : c.red('✗')} ${label}  ${counts}${traceNote}`)
  for (const p of r.problems) {
    const where = `${p.file}${p.line ? `:${p.line}` : ''}`
    out.line(`    ${c.red('•')} ${where}${p.step ? ` ${p.step}` : ''} ${c.bold(p.code)}: ${p.message}`)
    if (p.diff) out.line(indent(colorDiff(p.diff, c), 6))
  }
}

/**
 * Colour a plain unified diff for the terminal: `-` red, `+` green, `@@` yellow.
 * @example
 * out.line(colorDiff(problem.diff, out.c))
 */
export function colorDiff(diff: string, c: Output['c']): string {
  return diff
    .split('\n')
    .map((l) => (l.startsWith('@@') ? c.yellow(l) : l.startsWith('-') ? c.red(l) : l.startsWith('+') ? c.green(l) : c.dim(l)))
    .join('\n')
}

const indent = (text: string, n: number) =>
  text
    .split('\n')
    .map((l) => ' '.repeat(n) + l)
    .join('\n')
