// A user's jest config: the fluxlab preset and nothing else.
module.exports = { preset: 'fluxlab', rootDir: __dirname, testTimeout: 20000 }
