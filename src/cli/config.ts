import { existsSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { DEFAULT_DIR, type FluxOptions } from '../context/options.js'
import { CliError, EXIT } from './errors.js'

/** Looked up in the working directory when `--config` is not given, in this order. */
const CONFIG_FILES = ['fluxlab.config.mjs', 'fluxlab.config.js', 'fluxlab.config.cjs', 'fluxlab.config.json'] as const

export interface LoadedConfig {
  options: FluxOptions
  /** The file the options came from, when there was one. */
  file?: string
}

/**
 * The project's fluxlab options for the CLI: the same object you pass to `fluxlab()` in vitest.config,
 * exported (default or `fluxlab`) from `fluxlab.config.mjs` (or `.js`, `.cjs`, `.json`). The CLI needs
 * `redact` (today's redaction marker, scan exceptions), `ignore`/`hosts`/`maxBytes`/`timing` (record and
 * replay) and `pricing` (costs in `show`).
 * @example
 * // fluxlab.config.mjs
 * export default { dir: 'test/recordings', redact: { headers: ['x-tenant-token'] } }
 * // vitest.config.ts: import flux from './fluxlab.config.mjs'; plugins: [fluxlab(flux)]
 */
export async function loadConfig(explicit: string | undefined, cwd = process.cwd()): Promise<LoadedConfig> {
  const file = explicit ? resolve(cwd, explicit) : CONFIG_FILES.map((f) => resolve(cwd, f)).find((f) => existsSync(f))
  if (!file) return { options: {} }
  if (!existsSync(file))
    throw new CliError(EXIT.error, {
      failed: `load the config ${explicit}`,
      reason: 'the file does not exist',
      fix: `Pass an existing file to --config, or drop the option to use ${CONFIG_FILES.join(' / ')} when present.`,
    })
  let value: unknown
  try {
    if (file.endsWith('.json')) value = JSON.parse(readFileSync(file, 'utf8'))
    else {
      const mod = (await import(pathToFileURL(file).href)) as { default?: unknown; fluxlab?: unknown }
      value = mod.fluxlab ?? mod.default
    }
  } catch (e) {
    throw new CliError(EXIT.error, {
      failed: `load the config ${file}`,
      reason: String((e as Error)?.message ?? e).split('\n')[0],
      fix: 'Fix the file; it should export the options object you pass to fluxlab() (export default { dir, redact, … }).',
    })
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new CliError(EXIT.error, {
      failed: `load the config ${file}`,
      reason: `it exports ${Array.isArray(value) ? 'an array' : typeof value}, not an options object`,
      fix: 'Export the options object: export default { dir: "tests/scenarios", redact: { … } }.',
    })
  return { options: value as FluxOptions, file }
}

/**
 * The fixture root: `--dir`, else the config's `dir`, else `tests/scenarios`, relative to the working directory.
 * @example
 * fixtureRoot(undefined, { dir: 'test/recordings' }) // '/abs/test/recordings'
 */
export function fixtureRoot(dirFlag: string | undefined, options: FluxOptions, cwd = process.cwd()): string {
  return resolve(cwd, dirFlag ?? options.dir ?? DEFAULT_DIR)
}
