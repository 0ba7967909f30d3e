// `node --import bench/setup-import-hooks.mjs bench/setup-import.mjs <file>`: a module hook that answers
// `import 'vitest'` with a stub (the hooks fluxlab's setup file registers do nothing), so the import of
// fluxlab's setup file can be timed outside vitest. Only the setup module and what it imports are timed.
import { register } from 'node:module'

const STUB = [
  'const noop = () => {}',
  'export const afterAll = noop, afterEach = noop, beforeEach = noop, aroundEach = noop',
  'export const expect = { extend: noop }',
  'export const inject = () => undefined',
].join('\n')

const hooks = `export async function resolve(spec, ctx, next) {
  if (spec === 'vitest') return { url: ${JSON.stringify(`data:text/javascript,${encodeURIComponent(STUB)}`)}, shortCircuit: true }
  return next(spec, ctx)
}`
register(`data:text/javascript,${encodeURIComponent(hooks)}`)
