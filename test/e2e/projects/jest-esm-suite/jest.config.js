// The suite's jest config for native ESM (run with NODE_OPTIONS=--experimental-vm-modules), plus the lines marked fluxlab.
export default {
  preset: 'fluxlab', // fluxlab
  globals: { fluxlab: { scenarios: 'per-test' } }, // fluxlab
  testMatch: ['**/test/**/*.test.js'],
  transform: {},
  testTimeout: 20000,
}
