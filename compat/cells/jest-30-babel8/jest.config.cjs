// The suite's jest config, plus the lines marked fluxlab.
module.exports = {
  preset: 'fluxlab', // fluxlab
  globals: { fluxlab: { scenarios: 'per-test' } }, // fluxlab
  testMatch: ['**/test/**/*.test.ts'],
  transform: { '^.+\\.ts$': 'babel-jest' },
  testTimeout: 20000,
}
