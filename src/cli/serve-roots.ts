/**
 * Issue 39 item 1: one fixture root for the Playwright tests and `fluxlab serve`, whatever the layout. The tests keep
 * their fixtures under the Playwright config's directory; `withFluxlab()` starts serve there (the entry's `cwd` moves
 * to `--cwd`, where the server itself runs), so serve's working directory is the config's. What serve says when its
 * root and the tests' differ, and when the server dies before it answers, is built here.
 */
import { type Dirent, existsSync, readdirSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { DEFAULT_DIR } from '../context/options.js'
import type { MessageParts } from '../errors.js'
import { PLAYWRIGHT_DIR_ENV } from '../sources/server-requests.js'

/** The names Playwright looks for a config under (`resolveConfigFile`). */
const PLAYWRIGHT_CONFIGS = ['ts', 'js', 'mts', 'mjs', 'cts', 'cjs'].map((ext) => `playwright.config.${ext}`)

/**
 * Whether any fixture (a `scenario.yaml`) is under `base`: a test's folder, or a project's folder of them.
 * @example
 * hasFixtures('/app/e2e/tests/scenarios') // true
 */
export function hasFixtures(base: string, depth = 0): boolean {
  let entries: Dirent[]
  try {
    entries = readdirSync(base, { withFileTypes: true })
  } catch {
    return false
  }
  return entries.some((e) =>
    e.isFile() ? e.name === 'scenario.yaml' : e.isDirectory() && depth < 2 && !e.name.startsWith('.') && hasFixtures(join(base, e.name), depth + 1),
  )
}

/**
 * Where the tests keep their fixtures, as far as serve can tell: under the config that started it (`withFluxlab()` runs
 * serve in the config's directory), else under a `playwright.config.*` in its directory or in one folder below it (a
 * hand-written entry with `cwd` at the project root); `undefined` when it finds none.
 * @example
 * testsRoot('/app', {}) // '/app/e2e/tests/scenarios' (with /app/e2e/playwright.config.ts)
 */
export function testsRoot(cwd: string, env: NodeJS.ProcessEnv): string | undefined {
  const given = env[PLAYWRIGHT_DIR_ENV]
  if (given !== undefined) return resolve(cwd, given || DEFAULT_DIR)
  const hasConfig = (dir: string) => PLAYWRIGHT_CONFIGS.some((f) => existsSync(join(dir, f)))
  if (hasConfig(cwd)) return resolve(cwd, DEFAULT_DIR)
  let dirs: string[] = []
  try {
    dirs = readdirSync(cwd, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.') && e.name !== 'node_modules')
      .map((e) => e.name)
  } catch {
    return undefined
  }
  const found = dirs.map((d) => join(cwd, d)).filter(hasConfig)
  return found.length === 1 ? resolve(found[0], DEFAULT_DIR) : undefined
}

/** A path as the user reads it: from the directory serve runs in. */
const shown = (path: string, from: string) => relative(from, path) || '.'

/**
 * How to give serve the tests' root: through `withFluxlab()`, which runs serve in the config's directory (the root is
 * then relative to it), or `--dir` on a hand-written command.
 */
function pointAt(tests: string, from: string, env: NodeJS.ProcessEnv): string {
  const dir = shown(tests, from)
  return env[PLAYWRIGHT_DIR_ENV] !== undefined
    ? `Give both one root: webServer: withFluxlab(entry, { dir: '${dir}' }) (from the config's directory)`
    : `Pass it to serve, \`fluxlab serve --dir ${dir} -- …\`, or wrap the entry in withFluxlab() from fluxlab/playwright, which runs serve in the config's ` +
        `directory`
}

/**
 * Serve's fixture root has no fixture while the tests' has some: the server would start with no placeholder key.
 * @example
 * rootMismatch('/app/tests/scenarios', '/app/e2e/tests/scenarios', '/app', process.env)
 */
export function rootMismatch(root: string, tests: string | undefined, from: string, env: NodeJS.ProcessEnv): MessageParts | undefined {
  if (!tests || resolve(root) === resolve(tests) || hasFixtures(root) || !hasFixtures(tests)) return undefined
  return {
    failed: 'find the fixtures of the Playwright tests',
    reason:
      `serve reads ${shown(root, from)}/, which holds no fixture, while the tests' fixtures are in ${shown(tests, from)}/: the app server gets no ` +
      `placeholder key and replays nothing of its own`,
    fix: pointAt(tests, from, env),
  }
}

/** What serve knows when the server exits on its own before it answered. */
export interface Death {
  code: number | null
  /** Whether serve was checking the server (`--ready`): then it is known not to have answered. */
  checked: boolean
  root: string
  tests: string | undefined
  /** serve's working directory: paths are shown from it. */
  from: string
  /** The key variables given a placeholder, and the ones the fixtures named. */
  placeholders: string[]
  keyVars: string[]
  /** The end of the server's stderr: only the names of variables are read from it, never a value. */
  stderr: string
  env: NodeJS.ProcessEnv
}

/**
 * One line on the cause of a server that died before it answered, as far as fluxlab knows it: no fixture found, or
 * the variable the server's error names got no placeholder.
 * @example
 * deathCause({ code: 1, root, tests, from, placeholders: [], keyVars: [], stderr: 'OpenAIError: … OPENAI_API_KEY …', env })
 */
export function deathCause(d: Death): MessageParts {
  const failed = `start the app server under fluxlab serve (it exited${d.code === null ? '' : ` with code ${d.code}`}${d.checked ? ' before it answered' : ''})`
  const named = [...new Set(d.stderr.match(/\b[A-Z][A-Z0-9_]*_(?:API_KEY|KEY|TOKEN)\b/g) ?? [])]
  const variable = named.find((v) => d.placeholders.includes(v)) ?? named.find((v) => !d.env[v])
  const empty = !hasFixtures(d.root)
  const elsewhere = empty && d.tests && resolve(d.tests) !== resolve(d.root) && hasFixtures(d.tests) ? d.tests : undefined
  const where = `${shown(d.root, d.from)}/`
  const fix = elsewhere ? pointAt(elsewhere, d.from, d.env) : undefined
  if (variable && d.placeholders.includes(variable))
    return {
      failed,
      reason: `it read ${variable}, which held fluxlab's replay placeholder (the fixtures in ${where} name it): the key was not the cause`,
      fix: "See the server's own error above",
    }
  const testsAt = elsewhere ? `, while the tests' fixtures are in ${shown(elsewhere, d.from)}/` : ''
  const keyVars = d.keyVars.length ? d.keyVars.join(', ') : 'no key variable'
  if (variable)
    return {
      failed,
      reason: `${variable} is unset and got no placeholder: ${empty ? `no fixture in ${where}${testsAt}` : `the fixtures in ${where} name ${keyVars}`}`,
      fix:
        fix ??
        (empty
          ? `Record first with ${variable} set (run the suite without CI), or set ${variable}`
          : `Re-record with ${variable} set (FLUX_GOLDEN=update), or name it in the config's \`keys\` (FLUX_KEYS=${variable})`),
    }
  if (elsewhere)
    return {
      failed,
      reason: `no fixture in ${where}, while the tests' fixtures are in ${shown(elsewhere, d.from)}/, so no key variable got a placeholder`,
      fix,
    }
  const given = empty
    ? `no fixture in ${where}, so no placeholder was given`
    : `placeholders were given for ${d.placeholders.length ? d.placeholders.join(', ') : 'no variable (each was set)'}`
  return { failed, reason: `its error names no key variable, and fluxlab knows no cause of its own (${given})`, fix: "See the server's own error above" }
}
