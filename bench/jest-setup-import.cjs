// Prints the CPU ms (user + system) one `require()` of the given jest setup module takes in this fresh process,
// with jest's globals (expect and the hooks) stood in for: the part of `fluxlab/jest` every test file pays.
const f = () => {}
globalThis.expect = { extend: f, getState: () => ({}) }
globalThis.beforeEach = f
globalThis.afterEach = f
globalThis.afterAll = f
globalThis.beforeAll = f
const c0 = process.cpuUsage()
require(process.argv[2])
const c = process.cpuUsage(c0)
process.stdout.write(((c.user + c.system) / 1000).toFixed(2))
