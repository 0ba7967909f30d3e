// The suite's jest config, plus the lines marked fluxlab.
module.exports = {
  preset: 'fluxlab', // fluxlab
  globals: { fluxlab: { scenarios: 'per-test' } }, // fluxlab
  testMatch: ['**/test/**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }] },
  testTimeout: 20000,
}
