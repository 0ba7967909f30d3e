/**
 * The jest versions fluxlab is tested on (compat/cells, `npm run test:compat`), and the startup check against
 * them. Kept equal to `peerDependencies.jest` in package.json by a test. The jest reporter (which
 * `preset: 'fluxlab'` adds) runs it once per run, in jest's main process, before any worker starts.
 */
import { createRequire } from 'node:module'
import { join } from 'node:path'

/** The tested range: the `jest` peer range. */
export const JEST_RANGE = '^29.0.0 || ^30.0.0'
const MAJORS: readonly number[] = [29, 30]

/**
 * The warning for a jest outside the tested range, or `undefined` inside it (or for a version it cannot read).
 * @example
 * checkJestVersion('28.1.3') // '[fluxlab] jest 28.1.3 is older than the tested range (^29.0.0 || ^30.0.0) …'
 * checkJestVersion('30.5.2') // undefined
 */
export function checkJestVersion(version: string): string | undefined {
  const major = Number(/^(\d+)\.\d+\.\d+/.exec(version)?.[1])
  if (!Number.isInteger(major) || MAJORS.includes(major)) return undefined
  const newest = MAJORS[MAJORS.length - 1]
  return major < MAJORS[0]
    ? `[fluxlab] jest ${version} is older than the tested range (${JEST_RANGE}): fluxlab's setup, matchers and reporter are not tested on it and may fail in ` +
        `ways that look like your tests' fault. Upgrade jest: \`npm install -D jest@^${newest}\` (see docs/compatibility.md).`
    : `[fluxlab] jest ${version} is newer than the tested range (${JEST_RANGE}); it may work. If it does not, pin jest@^${newest} and report it.`
}

/**
 * The version of the jest a project runs: its own `jest` package, resolved from its root dir (else from fluxlab's).
 * @example
 * jestVersion(process.cwd()) // '30.5.2'
 */
export function jestVersion(rootDir: string): string | undefined {
  for (const from of [join(rootDir, 'package.json'), import.meta.url]) {
    try {
      const v = (createRequire(from)('jest/package.json') as { version?: unknown }).version
      if (typeof v === 'string') return v
    } catch {
      // not resolvable from there: try the next place
    }
  }
  return undefined
}
