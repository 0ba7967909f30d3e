/**
 * The vitest versions fluxlab is tested on (compat/cells, `npm run test:compat`), and the startup check
 * against them. Kept equal to `peerDependencies.vitest` in package.json by a test.
 */
import { FluxError } from '../errors.js'

/** The tested range: the `vitest` peer range. */
export const VITEST_RANGE = '^3.2.0 || ^4.0.0 || ^5.0.0'
const OLDEST: readonly number[] = [3, 2, 0]
const NEWEST_MAJOR = 5

/**
 * Check the vitest that will load fluxlab's setup: older than the tested range is an error (its per-test
 * hooks and `configureVitest` are missing, so fluxlab would run wrong, silently); newer is a warning.
 * @example
 * checkVitestVersion('3.1.4') // { error: FluxError FLUX_BAD_CONFIG … }
 */
export function checkVitestVersion(version: string): { error?: FluxError; warning?: string } {
  const parts = /^(\d+)\.(\d+)\.(\d+)/.exec(version)?.slice(1).map(Number)
  if (!parts) return {}
  const older = parts.findIndex((n, i) => n !== OLDEST[i])
  if (older !== -1 && parts[older] < OLDEST[older])
    return {
      error: new FluxError('FLUX_BAD_CONFIG', {
        failed: `load fluxlab's vitest plugin on vitest ${version}`,
        reason: `fluxlab supports vitest ${VITEST_RANGE} (the tested range); vitest ${version} lacks the hooks it needs`,
        fix: 'Upgrade vitest: `npm install -D vitest@^3.2.0` (or any tested version, see docs/compatibility.md).',
      }),
    }
  if (parts[0] > NEWEST_MAJOR)
    return {
      warning:
        `[fluxlab] vitest ${version} is newer than the tested range (${VITEST_RANGE}); it may work. If it does not, pin vitest@^${NEWEST_MAJOR} and ` +
        `report it.`,
    }
  return {}
}
