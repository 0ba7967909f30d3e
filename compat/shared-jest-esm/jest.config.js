// Native ESM jest (NODE_OPTIONS=--experimental-vm-modules, "type": "module", no transform), plus the lines marked fluxlab.
export default {
  preset: 'fluxlab', // fluxlab
  globals: { fluxlab: { scenarios: 'per-test' } }, // fluxlab
  testMatch: ['**/test/**/*.test.js'],
  transform: {},
  testTimeout: 20000,
}
