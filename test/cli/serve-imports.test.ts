/**
 * Issue 39 (bench section 6): `fluxlab serve` listens at the server's socket from the start, and loads its engine (the
 * server's own run, with the interceptors it imports: about 80 ms of CPU) only when the server's own scenario needs it.
 * Under CI with no fixture of its own, a server that makes no call outside the tests' requests never loads it; where
 * recording is allowed, serve loads it while the server starts, as before. serve runs with a loader hook that lists
 * the modules it imports.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { assertBuilt, cleanup, fluxlab, tempDir } from './support.js'

const SERVER = `import { createServer } from 'node:http'
createServer((req, res) => res.end('ok')).listen(0, '127.0.0.1', () => setTimeout(() => process.exit(0), 300))
`

let dir: string

beforeAll(() => {
  assertBuilt()
  dir = tempDir('flux-serve-imports-')
  writeFileSync(join(dir, 'server.mjs'), SERVER)
  // in serve's own process only (the server inherits NODE_OPTIONS): every module it imports, one URL a line
  writeFileSync(join(dir, 'hooks.mjs'), `import { appendFileSync } from 'node:fs'\nexport async function load(url, c, next) {\n  appendFileSync(${JSON.stringify(join(dir, 'loaded.txt'))}, url + '\\n')\n  return next(url, c)\n}\n`)
  writeFileSync(join(dir, 'hook.mjs'), `import { register } from 'node:module'\nif (process.argv.includes('serve')) register(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)})\n`)
})
afterAll(() => cleanup())

/** The modules serve imported while it ran `server.mjs` with `env`. */
async function served(env: Record<string, string>): Promise<string[]> {
  writeFileSync(join(dir, 'loaded.txt'), '')
  const r = await fluxlab(['serve', '--', 'node', 'server.mjs'], { cwd: dir, env: { ...env, NODE_OPTIONS: `--import ${join(dir, 'hook.mjs')}` } })
  expect(r.code, r.output).toBe(0)
  return readFileSync(join(dir, 'loaded.txt'), 'utf8').trim().split('\n')
}

test('under CI with no fixture of its own, serve never loads its engine for a server that makes no call of its own', async () => {
  const loaded = await served({ CI: '1' })
  expect(loaded.some((u) => /\/dist\/serve-[\w-]+\.js$/.test(u)), 'the hook saw serve itself').toBe(true)
  expect(loaded.filter((u) => /serve-run|@mswjs\/interceptors/.test(u))).toEqual([])
})

test('where recording is allowed, serve loads its engine while the server starts', async () => {
  const loaded = await served({})
  expect(loaded.some((u) => /\/dist\/serve-run-[\w-]+\.js$/.test(u))).toBe(true)
})
