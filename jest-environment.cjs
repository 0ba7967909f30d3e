// fluxlab's jest test environment: jest's node environment, which lets go of fluxlab's interception when a
// test file's environment is torn down. The preset (`preset: 'fluxlab'`) and `withFluxlab` use it when the
// config names no environment of its own.
// @note a test file's environment is its own, but `node:http` and the diagnostics channels that fluxlab
// patches are the worker process's: without this, a file's interception stays until the next file of the worker
// starts intercepting and undoes it (src/sources/process-hold.ts), the last file's until the worker exits.
const path = require('node:path')

// jest-environment-node comes with jest; resolve it from the project first (pnpm keeps it out of our reach).
const nodeEnvironment = require(require.resolve('jest-environment-node', { paths: [process.cwd(), path.join(__dirname, '..')] }))
const Base = nodeEnvironment.TestEnvironment ?? nodeEnvironment.default ?? nodeEnvironment
const TEARDOWN = Symbol.for('fluxlab.jest.teardown')

class FluxlabEnvironment extends Base {
  async teardown() {
    const release = this.global?.[TEARDOWN]
    if (typeof release === 'function') await release()
    await super.teardown()
  }
}

module.exports = FluxlabEnvironment
module.exports.TestEnvironment = FluxlabEnvironment
