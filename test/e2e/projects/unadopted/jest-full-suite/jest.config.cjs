module.exports = {
  rootDir: __dirname,
  testMatch: ['**/test/**/*.test.cjs'],
  testTimeout: 20000,
}
