// A tiny jest 30 project that runs fluxlab's built matchers (`dist/`) under jest's own
// `expect`. `jest-run.test.ts` spawns it; run it alone with
// `node node_modules/jest/bin/jest.js --config test/matchers-jest/jest.config.cjs` after `npm run build`.
const preset = require('../../jest-preset.cjs')

module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/*.test.cjs'],
  // @note the preset's transforms load msw's ESM-only dependencies, which `dist/index.cjs` pulls in.
  transform: preset.transform,
  transformIgnorePatterns: preset.transformIgnorePatterns,
}
