// The jest preset: `preset: 'fluxlab'` in jest.config. It registers the fluxlab
// setup and makes msw's ESM-only dependencies load under jest's CommonJS runtime,
// so a project needs no transformIgnorePatterns of its own.
const path = require('node:path')

// @note FACTS: msw 2.15 on Node 20 pulls these ESM-only packages (mind the nested msw/node_modules copy).
const esmOnly = '(msw/node_modules/)?(rettime|until-async|@open-draft/deferred-promise)/'
const sep = '[/\\\\]'

module.exports = {
  testEnvironment: 'node',
  setupFilesAfterEnv: [path.join(__dirname, 'dist', 'jest.cjs')],
  // The fluxlab run summary after jest's own. A config with its own `reporters` replaces this list:
  // add 'fluxlab/jest-reporter' to it to keep the summary.
  reporters: ['default', path.join(__dirname, 'dist', 'jest-reporter.cjs')],
  transform: {
    [`${sep}node_modules${sep}${esmOnly.replace(/\//g, sep)}.+\\.m?js$`]: [
      'babel-jest',
      { babelrc: false, configFile: false, plugins: [require.resolve('@babel/plugin-transform-modules-commonjs')] },
    ],
    '\\.[cm]?[jt]sx?$': 'babel-jest',
  },
  transformIgnorePatterns: [`/node_modules/(?!${esmOnly})`],
  // @note jest takes every `*.snap` file for one of its snapshot files: a fixture's `trace.snap` has no test file
  // next to it, so jest reports it obsolete (failing the run) and `jest -u` deletes it. Hide them from jest's file map.
  modulePathIgnorePatterns: [`${sep}trace\\.snap$`],
}
