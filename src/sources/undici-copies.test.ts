// The module cache is read only when Node's loader loaded a file since the last look (issue 28: reading its keys at
// every run cost about 20 µs for 300 files). ./undici.test.ts routes the copies themselves, loaded by `require` late.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire, Module } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { patchLoadedCopies, unpatchCopies, watchLoads, type CopiesState } from './undici-copies.js'

const req = createRequire(import.meta.url)
let dir: string
let unwatch: () => void

/** A state whose module cache counts how often its keys are read. */
function counted(): { s: CopiesState; reads: () => number } {
  let reads = 0
  const moduleCache = new Proxy(req.cache, {
    ownKeys(target) {
      reads++
      return Reflect.ownKeys(target)
    },
  })
  return { s: { patches: new Map(), moduleCache }, reads: () => reads }
}
const route = () => true
let n = 0
/** A new CommonJS file, never loaded before (under `node_modules/`, so vitest leaves an `import()` of it to Node). */
const newModule = (): string => {
  const file = join(dir, 'node_modules', `m${++n}.cjs`)
  writeFileSync(file, `module.exports = ${n}\n`)
  return file
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fluxlab-copies-'))
  mkdirSync(join(dir, 'node_modules'))
  unwatch = watchLoads()
})
afterEach(() => {
  unwatch()
  rmSync(dir, { recursive: true, force: true })
})

describe('patchLoadedCopies', () => {
  test('reads the module cache again only after a file was loaded, by require or by import()', async () => {
    const { s, reads } = counted()
    patchLoadedCopies(s, route)
    expect(reads()).toBe(1)
    patchLoadedCopies(s, route)
    patchLoadedCopies(s, route)
    expect(reads()).toBe(1)
    req(newModule())
    patchLoadedCopies(s, route)
    expect(reads()).toBe(2)
    patchLoadedCopies(s, route)
    expect(reads()).toBe(2)
    await import(pathToFileURL(newModule()).href)
    patchLoadedCopies(s, route)
    expect(reads()).toBe(3)
    unpatchCopies(s)
    // forgotten how far it read: read whole again
    patchLoadedCopies(s, route)
    expect(reads()).toBe(4)
  })

  test('reads it every time while loads are not watched, or when another wrapper replaced the watch', () => {
    const { s, reads } = counted()
    unwatch()
    patchLoadedCopies(s, route)
    patchLoadedCopies(s, route)
    expect(reads()).toBe(2)
    unwatch = watchLoads()
    const loader = (Module as unknown as { prototype: { load: (f: string) => unknown } }).prototype
    const ours = loader.load
    loader.load = function (this: unknown, f: string) {
      return ours.call(this, f)
    }
    try {
      patchLoadedCopies(s, route)
      patchLoadedCopies(s, route)
      expect(reads()).toBe(4)
    } finally {
      loader.load = ours
    }
  })
})
