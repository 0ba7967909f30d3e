// The jest preset: `preset: 'fluxlab'` in jest.config. It registers the fluxlab
// setup and makes msw's ESM-only dependencies load under jest's CommonJS runtime,
// so a project needs no transformIgnorePatterns of its own.
const path = require('node:path')

// @note FACTS: msw 2.15 on Node 20 pulls these ESM-only packages (mind the nested msw/node_modules copy).
const esmOnly = '(msw/node_modules/)?(rettime|until-async|@open-draft/deferred-promise)/'
const sep = '[/\\\\]'
// @note native ESM jest (`node --experimental-vm-modules`, usually through NODE_OPTIONS): jest links those packages
// as the ES modules they are, and turning them into CommonJS would break the link ("does not provide an export
// named 'DeferredPromise'"). The workers inherit the flag from this process, so it decides here.
const nativeEsm = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].includes('--experimental-vm-modules')

// jest's node environment, letting go of fluxlab's interception as each test file ends (see jest-environment.cjs).
const testEnvironment = path.join(__dirname, 'jest-environment.cjs')
// Under native ESM the setup is the ESM build, which the tests' `import 'fluxlab'` shares its modules with.
const setupFilesAfterEnv = [path.join(__dirname, 'dist', nativeEsm ? 'jest.js' : 'jest.cjs')]
// The fluxlab run summary after jest's own. A config with its own `reporters` replaces this list:
// add 'fluxlab/jest-reporter' to it to keep the summary.
const reporters = ['default', path.join(__dirname, 'dist', 'jest-reporter.cjs')]
const transform = nativeEsm
    ? { '\\.[cm]?[jt]sx?$': 'babel-jest' }
    : {
        // fluxlab's own transformer (sucrase), whatever Babel the project's babel-jest runs (jest-esm-transform.cjs)
        [`${sep}node_modules${sep}${esmOnly.replace(/\//g, sep)}.+\\.m?js$`]: path.join(__dirname, 'jest-esm-transform.cjs'),
        '\\.[cm]?[jt]sx?$': 'babel-jest',
      }
const transformIgnorePatterns = nativeEsm ? ['/node_modules/'] : [`/node_modules/(?!${esmOnly})`]
  // @note jest takes every `*.snap` file for one of its snapshot files: a fixture's `trace.snap` has no test file
  // next to it, so jest reports it obsolete (failing the run) and `jest -u` deletes it. Hide them from jest's file map.
const modulePathIgnorePatterns = [`${sep}trace\\.snap$`]

// The config file jest was started with (`-c`, `--config`), for the command a message gives to run one test again
// (`npx jest -c jest.int.config.js …`): jest hands its workers the config, never its path, and they inherit this
// process's environment. Set or cleared here, so a jest started by a test does not take its parent's. A config given
// as JSON on the command line names no file.
const configArg = (() => {
  const argv = process.argv.slice(2)
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '-c' || argv[i] === '--config') return argv[i + 1]
    if (argv[i].startsWith('--config=')) return argv[i].slice('--config='.length)
  }
  return undefined
})()
if (configArg && !configArg.trim().startsWith('{')) process.env.FLUX_JEST_CONFIG = path.resolve(configArg)
else delete process.env.FLUX_JEST_CONFIG

// Issue 41: under GitHub Actions the fluxlab reporter annotates each failed test at its line, which jest reports only when asked.
const testLocationInResults = process.env.GITHUB_ACTIONS === 'true'

// Shorthand properties, so Node's ESM import of this file sees each as a named export (as the types declare).
module.exports = { testEnvironment, setupFilesAfterEnv, reporters, transform, transformIgnorePatterns, modulePathIgnorePatterns, testLocationInResults }
