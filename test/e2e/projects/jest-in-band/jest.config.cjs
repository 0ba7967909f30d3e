module.exports = {
  testEnvironment: 'node',
  rootDir: __dirname,
  roots: ['<rootDir>/src'],
  testMatch: ['**/__tests__/**/*.test.cjs', '**/__integration__/**/*.test.cjs'],
  testTimeout: 20000,
}
