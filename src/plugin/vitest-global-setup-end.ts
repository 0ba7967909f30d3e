/**
 * Issue 38 item 4: the global setup the `fluxlab()` plugin puts after a project's own `globalSetup` files (see
 * `vitest-global-setup.ts`): the project's global setup is over and the workers are about to start, so the gate's
 * placeholders go (a test file sees each key as it did while recording); vitest runs the teardowns in reverse, so they
 * stand again for the project's own global teardown.
 */
import { pauseGate, resumeGate } from '../context/gate-keys.js'

/**
 * @example
 * setup()
 */
export function setup(): void {
  pauseGate()
}

/**
 * @example
 * teardown()
 */
export function teardown(): void {
  resumeGate()
}
