import { existsSync } from 'node:fs'
import { join, relative, resolve, sep } from 'node:path'
import { findFixtures } from '../cassette/find.js'
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
 * A path for messages: relative to the working directory when inside it, with `/` separators.
 * @example
 * display('/repo/tests/scenarios/x', '/repo') // 'tests/scenarios/x'
 */
export function display(p: string, cwd = process.cwd()): string {
  const r = relative(cwd, p)
  return r === '' ? '.' : r.startsWith('..') ? p : r.split(sep).join('/')
}
