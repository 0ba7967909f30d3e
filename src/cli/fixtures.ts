import { existsSync, readdirSync, statSync } from 'node:fs'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'
import { FILES } from '../cassette/fixture.js'
import type { Fixture } from '../cassette/cell.js'
import type { TraceStep } from '../golden/trace.js'
import { CliError, EXIT } from './errors.js'

const SKIP_DIRS = new Set(['node_modules', '.git'])

/**
 * Every fixture directory (one holding `scenario.yaml`) under `root`, forks included
 * (`<scenario>/forks/<id>/`), sorted so parents come before their forks.
 * @example
 * findFixtures('tests/scenarios') // ['/abs/tests/scenarios/capital', '/abs/tests/scenarios/capital/forks/inject-3']
 */
export function findFixtures(root: string): string[] {
  const out: string[] = []
  const walk = (dir: string): void => {
    let names: string[]
    try {
      names = readdirSync(dir)
    } catch {
      return
    }
    if (names.includes(FILES.manifest)) out.push(dir)
    for (const name of names.sort()) {
      if (SKIP_DIRS.has(name) || name.startsWith('.')) continue
      const full = join(dir, name)
      try {
        if (statSync(full).isDirectory()) walk(full)
      } catch {
        // a dangling link or a directory that vanished mid-walk: not a fixture
      }
    }
  }
  if (existsSync(root)) walk(root)
  return out
}

/**
 * The fixture directory a name on the command line means: `<root>/<name>` (a scenario name like
 * `triage` or `triage/forks/inject-3`), else `<name>` as a path. Undefined when neither holds a fixture.
 * @example
 * resolveFixture('triage', '/abs/tests/scenarios') // '/abs/tests/scenarios/triage'
 */
export function resolveFixture(name: string, root: string, cwd = process.cwd()): string | undefined {
  for (const candidate of [resolve(root, name), resolve(cwd, name)])
    if (existsSync(join(candidate, FILES.manifest))) return candidate
  return undefined
}

/**
 * Like {@link resolveFixture}, but a missing fixture is a CLI error (exit 3) that lists what is there.
 * @example
 * const dir = requireFixture('triage', root)
 */
export function requireFixture(name: string, root: string, cwd = process.cwd()): string {
  const dir = resolveFixture(name, root, cwd)
  if (dir) return dir
  const known = findFixtures(root).map((d) => relative(root, d).split(sep).join('/'))
  throw new CliError(EXIT.error, {
    failed: `find scenario "${name}"`,
    reason: `there is no fixture (a directory with ${FILES.manifest}) at ${display(resolve(root, name))}${resolve(root, name) !== resolve(cwd, name) ? ` or ${display(resolve(cwd, name))}` : ''}`,
    fix: known.length
      ? `Use one of the scenarios under ${display(root)}, or pass --dir <fixture root>.`
      : `Pass --dir <fixture root> (default tests/scenarios, or "dir" in fluxlab.config.mjs), or record one: npx fluxlab record ${name} -- node agent.js.`,
    details: known.slice(0, 12).concat(known.length > 12 ? [`… ${known.length - 12} more`] : []),
  })
}

/**
 * For a fork (`<parent>/forks/<id>/`), its parent fixture directory.
 * @example
 * forkParent('/x/tests/scenarios/triage/forks/inject-3') // '/x/tests/scenarios/triage'
 */
export function forkParent(dir: string): string | undefined {
  const forks = dirname(dir)
  if (basename(forks) !== 'forks') return undefined
  const parent = dirname(forks)
  return existsSync(join(parent, FILES.manifest)) ? parent : undefined
}

/**
 * A path for messages: relative to the working directory when inside it, with `/` separators.
 * @example
 * display('/repo/tests/scenarios/x', '/repo') // 'tests/scenarios/x'
 */
export function display(p: string, cwd = process.cwd()): string {
  const r = relative(cwd, p)
  return r === '' ? '.' : r.startsWith('..') ? p : r.split(sep).join('/')
}

/**
 * The recorded run's steps in the order it made them (model and tool cells interleaved by `seq`),
 * exactly as `Scenario.replay()` and the trace see them.
 * @example
 * renderTrace(fx.manifest.name, fixtureSteps(fx))
 */
export function fixtureSteps(fx: Pick<Fixture, 'model' | 'tools'>): TraceStep[] {
  return [
    ...fx.model.map((cell) => ({ seq: cell.seq, step: { channel: 'model' as const, cell } as TraceStep })),
    ...fx.tools.map((cell) => ({ seq: cell.seq, step: { channel: 'tool' as const, cell } as TraceStep })),
  ]
    .sort((a, b) => a.seq - b.seq)
    .map((s) => s.step)
}
