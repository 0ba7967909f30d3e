/**
 * Issue 39 (bench section 6): `fluxlab serve` listens at the server's socket from the start, and loads its engine (the
 * server's own run, with the interceptors it imports: about 80 ms of CPU) only when the server's own scenario needs it.
 * Under CI with no fixture of its own, a server that makes no call outside the tests' requests never loads it; where
 * recording is allowed, serve loads it while the server starts, as before. serve runs with a loader hook that lists
 * the modules it imports (and, at its exit, the CommonJS ones it required).
 */
import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { assertBuilt, childEnv, cleanup, REPO, tempDir } from './support.js'

const SERVER = `import { createServer } from 'node:http'
createServer((req, res) => res.end('ok')).listen(0, '127.0.0.1', () => setTimeout(() => process.exit(0), 300))
`

let dir: string

beforeAll(() => {
  assertBuilt()
  dir = tempDir('flux-serve-imports-')
  writeFileSync(join(dir, 'server.mjs'), SERVER)
  // in serve's own process only (the server inherits NODE_OPTIONS): every module it imports, one URL a line
  writeFileSync(
    join(dir, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs'\nexport async function load(url, c, next) {\n  appendFileSync(${JSON.stringify(join(dir, 'loaded.txt'))}, url + '\\n')\n  return next(url, c)\n}\n`,
  )
  // and, at its exit, every CommonJS module it required (Playwright's webServer runs the CommonJS build, dist/cli.cjs)
  writeFileSync(
    join(dir, 'hook.mjs'),
    `import { appendFileSync } from 'node:fs'\nimport { createRequire, register } from 'node:module'\nif (process.argv.includes('serve')) {\n` +
      `  register(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)})\n` +
      `  process.on('exit', () => appendFileSync(${JSON.stringify(join(dir, 'loaded.txt'))}, Object.keys(createRequire(import.meta.url).cache).join('\\n') + '\\n'))\n}\n`,
  )
})
afterAll(() => cleanup())

/** The modules serve (`dist/<cli>`) imported or required while it ran `server.mjs` with `env`. */
async function served(cli: string, env: Record<string, string>): Promise<string[]> {
  writeFileSync(join(dir, 'loaded.txt'), '')
  const r = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO, 'dist', cli), 'serve', '--', 'node', 'server.mjs'], {
      cwd: dir,
      env: childEnv({ ...env, NODE_OPTIONS: `--import ${join(dir, 'hook.mjs')}` }),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (d: Buffer) => (output += d.toString()))
    child.stderr.on('data', (d: Buffer) => (output += d.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, output }))
  })
  expect(r.code, r.output).toBe(0)
  return readFileSync(join(dir, 'loaded.txt'), 'utf8').trim().split('\n')
}

describe.each(['cli.js', 'cli.cjs'])('dist/%s serve', (cli) => {
  test('under CI with no fixture of its own, never loads its engine for a server that makes no call of its own', async () => {
    const loaded = await served(cli, { CI: '1' })
    expect(
      loaded.some((u) => /\/dist\/serve-[\w-]+\.c?js$/.test(u)),
      'the hook saw serve itself',
    ).toBe(true)
    expect(loaded.filter((u) => /serve-run|@mswjs\/interceptors/.test(u))).toEqual([])
  })

  test('where recording is allowed, loads its engine while the server starts', async () => {
    const loaded = await served(cli, {})
    expect(loaded.some((u) => /\/dist\/serve-run-[\w-]+\.c?js$/.test(u))).toBe(true)
  })
})
