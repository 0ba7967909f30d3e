/**
 * Which copies of fluxlab this process has loaded. Copies of one version (its ESM and CJS builds)
 * share one state on `globalThis` and work together; copies of two versions (a nested
 * `node_modules`, a linked checkout next to an installed package) may not, and the runner setup of
 * one cannot see the tests of the other. So a second version is said out loud, once, when it loads.
 */
import { VERSION } from '../version.js'

interface Copy {
  version: string
  /** The state key this copy shares its test and routing state under (see `state.ts`). */
  state: string
  /** Where the copy was loaded from. */
  where: string
}

const KEY = Symbol.for('fluxlab.copies')
/** The `Symbol.for` key of the shared state; a copy that changes its shape changes this. */
export const STATE_KEY = 'fluxlab.state.v2'

/**
 * Note this copy as loaded, and warn when a copy of another version is loaded already.
 * @example
 * registerCopy(import.meta.url)
 */
export function registerCopy(where: string, version: string = VERSION, warn: (message: string) => void = console.warn): void {
  const copies = loadedCopies()
  const mine: Copy = { version, state: STATE_KEY, where }
  const clash = copies.find((c) => c.version !== mine.version || c.state !== mine.state)
  if (!copies.some((c) => c.version === mine.version && c.state === mine.state && c.where === mine.where)) copies.push(mine)
  if (clash) warn(describeCopies(copies))
}

/**
 * The sentence that names the loaded copies when more than one version is loaded, else `undefined`.
 * @example
 * copiesProblem() // 'two copies of fluxlab are loaded: 0.1.0 (file:///a/…) and 0.2.0 (file:///b/…) …'
 */
export function copiesProblem(): string | undefined {
  const copies = loadedCopies()
  const versions = new Set(copies.map((c) => `${c.version}/${c.state}`))
  return versions.size > 1 ? describeCopies(copies) : undefined
}

function describeCopies(copies: Copy[]): string {
  const list = copies.map((c) => `${c.version} (${c.where})`).join(' and ')
  return (
    `fluxlab: ${copies.length} copies of fluxlab are loaded: ${list}. Each version keeps its own test state, so the runner setup of one ` +
    `cannot see the scenarios of the other. Fix: install one version (\`npm ls fluxlab\` shows where each comes from; \`npm dedupe\` or one version in every ` +
    `package.json).`
  )
}

function loadedCopies(): Copy[] {
  const g = globalThis as Record<symbol, unknown>
  return (g[KEY] as Copy[] | undefined) ?? ((g[KEY] = []) as Copy[])
}
