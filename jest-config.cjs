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
const DEFAULT_IGNORE = new Set(['/node_modules/', '[/\\\\]node_modules[/\\\\]', '/node_modules/.+\\.(js|jsx)$'])

/**
 * @param {Record<string, any>} config the project's jest config
 * @param {Record<string, unknown>} [options] fluxlab options for the workers (`scenarios`, `dir`, …)
 */
function withFluxlab(config = {}, options) {
  const out = { ...config }
  out.testEnvironment ??= preset.testEnvironment
  out.setupFilesAfterEnv = [...(config.setupFilesAfterEnv ?? []).filter((f) => f !== SETUP), SETUP]
  const reporters = config.reporters ?? ['default']
  out.reporters = reporters.some((r) => (Array.isArray(r) ? r[0] : r) === REPORTER) ? reporters : [...reporters, REPORTER]
  // jest applies its own babel-jest only while `transform` is unset: keep that default when adding ours.
  if (esmOnly) out.transform = { [esmOnly[0]]: esmOnly[1], ...(config.transform ?? { '\\.[cm]?[jt]sx?$': 'babel-jest' }) }
  // @note a file is left untransformed when ANY pattern matches it, so msw's ESM-only dependencies must be carved
  // out of the project's own node_modules patterns too; other patterns are kept as they are.
  const ignore = config.transformIgnorePatterns
  out.transformIgnorePatterns = ignore === undefined ? preset.transformIgnorePatterns : ignore.map((p) => (DEFAULT_IGNORE.has(p) ? preset.transformIgnorePatterns[0] : p))
  out.modulePathIgnorePatterns = [...(config.modulePathIgnorePatterns ?? []), ...preset.modulePathIgnorePatterns]
  if (options) out.globals = { ...(config.globals ?? {}), fluxlab: { ...(config.globals?.fluxlab ?? {}), ...options } }
  return out
}

module.exports = { withFluxlab }
