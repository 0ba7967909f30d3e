module.exports = {
  preset: 'fluxlab', // fluxlab
  globals: { fluxlab: { scenarios: 'per-test' } }, // fluxlab
  rootDir: __dirname,
  testMatch: ['**/test/**/*.test.cjs'],
  testTimeout: 60000,
}
