// `withFluxlab(config, options)`: merge fluxlab into a jest config that already has its own preset,
// transforms, reporters or setup files, keeping all of them (the `fluxlab` preset replaces them).
// @example
// const { withFluxlab } = require('fluxlab/jest-config')
// module.exports = withFluxlab({ preset: 'ts-jest', reporters: ['default', 'jest-junit'] }, { scenarios: 'per-test' })
const preset = require('./jest-preset.cjs')

const REPORTER = preset.reporters[1]
const SETUP = preset.setupFilesAfterEnv[0]
// The transform that turns msw's ESM-only dependencies into CommonJS (absent under native ESM jest, see the preset).
const esmOnly = Object.entries(preset.transform).find(([pattern]) => pattern.includes('node_modules'))
const NODE_ENVIRONMENTS = new Set(['node', 'jest-environment-node'])
const DEFAULT_IGNORE = new Set(['/node_modules/', '[/\\\\]node_modules[/\\\\]', '/node_modules/.+\\.(js|jsx)$'])

/**
 * @param {Record<string, any>} config the project's jest config
 * @param {Record<string, unknown>} [options] fluxlab options for the workers (`scenarios`, `dir`, …)
 */
function withFluxlab(config = {}, options) {
  const out = { ...config }
  // jest's `node` environment named outright is fluxlab's, which is that environment letting go of fluxlab's
  // interception as each test file ends (issue 24: a config naming `'node'`, as many do, never let go of it).
  if (config.testEnvironment === undefined || NODE_ENVIRONMENTS.has(config.testEnvironment)) out.testEnvironment = preset.testEnvironment
  out.setupFilesAfterEnv = [...(config.setupFilesAfterEnv ?? []).filter((f) => f !== SETUP), SETUP]
  const reporters = config.reporters ?? ['default']
  out.reporters = reporters.some((r) => (Array.isArray(r) ? r[0] : r) === REPORTER) ? reporters : [...reporters, REPORTER]
  // jest applies its own babel-jest only while `transform` is unset: keep that default when adding ours, unless a
  // preset brings transforms (ts-jest's): jest puts the config's patterns before the preset's and takes the first
  // that matches, so a babel-jest added here would take its `.ts` files from ts-jest (issue 24).
  const own = config.transform ?? (presetTransforms(config) ? {} : { '\\.[cm]?[jt]sx?$': 'babel-jest' })
  if (esmOnly) out.transform = { [esmOnly[0]]: esmOnly[1], ...own }
  // @note a file is left untransformed when ANY pattern matches it, so msw's ESM-only dependencies must be carved
  // out of the project's own node_modules patterns too; other patterns are kept as they are.
  const ignore = config.transformIgnorePatterns
  out.transformIgnorePatterns = ignore === undefined ? preset.transformIgnorePatterns : ignore.map((p) => (DEFAULT_IGNORE.has(p) ? preset.transformIgnorePatterns[0] : p))
  out.modulePathIgnorePatterns = [...(config.modulePathIgnorePatterns ?? []), ...preset.modulePathIgnorePatterns]
  // Issue 41: the fluxlab reporter's GitHub annotations point at each test's line, which jest reports only when asked.
  if (config.testLocationInResults === undefined && preset.testLocationInResults) out.testLocationInResults = true
  if (options) out.globals = { ...(config.globals ?? {}), fluxlab: { ...(config.globals?.fluxlab ?? {}), ...options } }
  openGates(config, out.globals?.fluxlab)
  return out
}

/**
 * Issue 38 item 4: jest runs a `globalSetup` in its main process, before any worker, where the workers' placeholders never
 * stand; a suite may gate its whole run on a key there (`if (!process.env.OPENAI_API_KEY) throw …`). This config is loaded
 * in that process before the global setup runs, so the gate opens here (placeholders from the record of what the global
 * setup read while recording, `.files/(global-setup).yaml`), and fluxlab's reporter lets go of it before the workers start
 * (src/context/gate-keys.ts). Jest itself loads the global setup, whatever its form (CommonJS, ESM, TypeScript).
 * @param {Record<string, any>} config
 * @param {Record<string, unknown> | undefined} options
 */
function openGates(config, options) {
  const path = require('node:path')
  const root = config.rootDir ? path.resolve(config.rootDir) : process.cwd()
  const roots = []
  if (config.globalSetup) roots.push([root, options])
  for (const p of Array.isArray(config.projects) ? config.projects : []) {
    if (p === null || typeof p !== 'object' || !p.globalSetup) continue
    roots.push([p.rootDir ? path.resolve(root, p.rootDir) : root, { ...(options ?? {}), ...(p.globals?.fluxlab ?? {}) }])
  }
  if (roots.length === 0) return
  const { openGate } = require('./dist/gate-keys.cjs')
  const argv = process.argv
  const updateState = argv.includes('--ci') ? 'none' : argv.includes('-u') || argv.includes('--updateSnapshot') ? 'all' : undefined
  for (const [rootDir, o] of roots) openGate({ rootDir, options: o, updateState })
}

/**
 * Whether the config's `preset` brings its own `transform` (ts-jest's does). A preset that cannot be resolved from
 * the project's root is taken to bring one: adding babel-jest in front of it could shadow it, leaving it out cannot.
 * @param {Record<string, any>} config
 */
function presetTransforms(config) {
  if (typeof config.preset !== 'string') return false
  const root = config.rootDir ?? process.cwd()
  const name = config.preset.startsWith('.') ? require('node:path').resolve(root, config.preset) : config.preset
  for (const candidate of [`${name}/jest-preset`, name]) {
    try {
      const loaded = require(require.resolve(candidate, { paths: [root] }))
      return loaded !== null && typeof loaded === 'object' && loaded.transform !== undefined && Object.keys(loaded.transform).length > 0
    } catch {
      // not this one: try the next form, else treat it as bringing transforms
    }
  }
  return true
}

module.exports = { withFluxlab }
