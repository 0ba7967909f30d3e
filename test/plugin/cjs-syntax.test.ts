/**
 * The CommonJS build (jest, Playwright specs, `fluxlab serve`) is the ES module build with `import`/`export` turned
 * into `require`/`exports` and nothing else: no helper calls in place of `?.`, `??` or class fields (tsup.config.ts,
 * `cjsKeepSyntax`). Each helper call is a closure per property access, on the replay path too.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, expect, test } from 'vitest'
import { assertBuilt, REPO } from '../e2e/support/project.js'

beforeAll(() => assertBuilt())

test('no CommonJS file of the build rewrites ES syntax into helpers', () => {
  const files = readdirSync(join(REPO, 'dist')).filter((f) => f.endsWith('.cjs'))
  expect(files.length).toBeGreaterThan(20)
  const rewritten = files.filter((f) =>
    /\b(_optionalChain|_nullishCoalesce|_asyncOptionalChain)\(|\.prototype\.__init\d*\.call\(/.test(readFileSync(join(REPO, 'dist', f), 'utf8')),
  )
  expect(rewritten).toEqual([])
  // the syntax is there as written: the ES module build's `?.` and `??` are in the CommonJS build too
  const text = files.map((f) => readFileSync(join(REPO, 'dist', f), 'utf8')).join('\n')
  expect(text).toMatch(/\?\.\w/)
  expect(text).toMatch(/ \?\? /)
})
