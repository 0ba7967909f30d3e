// The jest transformer fluxlab's preset applies to msw's ESM-only dependencies (jest-preset.cjs): their `import` and
// `export` become `require` and `exports`, and nothing else changes. sucrase, not Babel: babel-jest runs the project's
// own @babel/core, and Babel 8 refuses a Babel 7 plugin ("Requires Babel ^7.0.0-0, but was loaded with 8.0.1": every
// test file failed to load in llm-interface, bench/third-party), while a project on Babel 7 would refuse a Babel 8 one.
const { createHash } = require('node:crypto')
const { transform } = require('sucrase')
const { version } = require('sucrase/package.json')

module.exports = {
  process(source, filename) {
    return { code: transform(source, { transforms: ['imports'], disableESTransforms: true, filePath: filename }).code }
  },
  getCacheKey(source, filename) {
    return createHash('sha256').update(`fluxlab-esm-transform 1 sucrase ${version}\0${filename}\0`).update(source).digest('hex')
  },
}
