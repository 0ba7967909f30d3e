import { existsSync } from 'node:fs'
import { join, relative, resolve, sep } from 'node:path'
import { globToRegExp } from '../context/glob.js'
import { findFixtures, forkParent } from '../cassette/find.js'
import { FILES } from '../cassette/fixture-files.js'
import { CliError, EXIT } from './errors.js'

export { findFixtures, forkParent } from '../cassette/find.js'

/**
 * The fixture directory a name on the command line means: `<root>/<name>` (a scenario name like
 * `triage` or `triage/forks/inject-3`), else `<name>` as a path. Undefined when neither holds a fixture.
 * @example
 * resolveFixture('triage', '/abs/tests/scenarios') // '/abs/tests/scenarios/triage'
 */
function resolveFixture(name: string, root: string, cwd = process.cwd()): string | undefined {
  for (const candidate of [resolve(root, name), resolve(cwd, name)]) if (existsSync(join(candidate, FILES.manifest))) return candidate
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
    reason:
      `there is no fixture (a directory with ${FILES.manifest}) at ` +
      `${display(resolve(root, name))}${resolve(root, name) !== resolve(cwd, name) ? ` or ${display(resolve(cwd, name))}` : ''}`,
    fix: known.length
      ? `Use one of the scenarios under ${display(root)}, or pass --dir <fixture root>.`
      : `Pass --dir <fixture root> (default tests/scenarios, or "dir" in fluxlab.config.mjs), or record one: npx fluxlab record ${name} -- node agent.js.`,
    details: known.slice(0, 12).concat(known.length > 12 ? [`… ${known.length - 12} more`] : []),
  })
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
 * Names, paths or globs (`billing/*`, `**`) on the command line; none means every fixture under the root. Forks only when
 * named. No fixture at all is a CLI error (exit 3) whose first words are `purpose`.
 * @example
 * selectFixtures(['billing/*'], root, 'report on the fixtures')
 */
export function selectFixtures(patterns: string[], root: string, purpose: string): string[] {
  const all = findFixtures(root)
  const named = (dir: string) => relative(root, dir).split(sep).join('/')
  const found = new Set<string>()
  if (patterns.length === 0) for (const d of all) if (!forkParent(d)) found.add(d)
  for (const p of patterns) {
    if (!/[*?[]/.test(p)) {
      found.add(requireFixture(p, root))
      continue
    }
    const re = globToRegExp(p)
    const hits = all.filter((d) => re.test(named(d)) && (!forkParent(d) || p.includes('forks')))
    if (hits.length === 0)
      throw new CliError(EXIT.error, {
        failed: `find fixtures matching "${p}"`,
        reason: `no scenario under ${display(root)} matches it`,
        fix: 'Match scenario names relative to the fixture root (`billing/*`, `**/refund`), or pass --dir <fixture root>',
        details: all.slice(0, 12).map(named),
      })
    for (const d of hits) found.add(d)
  }
  if (found.size === 0)
    throw new CliError(EXIT.error, {
      failed: purpose,
      reason: 'no fixtures were found (no directory with scenario.yaml), and an empty check would pass silently',
      fix: 'Run it where your fixtures are, pass --dir <fixture root> (or "dir" in fluxlab.config.mjs), or record one first',
    })
  return [...found]
}
