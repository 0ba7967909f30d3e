// Generated vitest projects for the bench's `setup` and `suite` sections (bench/suite.mjs).
// A project lives under os.tmpdir(). Its `node_modules` is a symlink to one shared install
// (`installDir()`): a symlink to each package of the repo's node_modules, and `fluxlab` as a real
// copy of the built package. So fluxlab's files sit under node_modules as in a user's install and
// vitest loads them as an external dependency, not as source to transform (what the repo's
// `node_modules/fluxlab -> ..` self-link would make them). Nothing is written into the repo.
import { spawn } from 'node:child_process'
import { createServer } from 'node:http'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const VITEST = join(root, 'node_modules/vitest/vitest.mjs')
const JEST = join(root, 'node_modules/jest/bin/jest.js')

/** The model's answer to a question: what the local server sends, what the msw handler sends, what the fixtures store. */
export function reply(body) {
  const q = JSON.parse(body).messages.at(-1).content
  return JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, message: { role: 'assistant', content: `answer to ${q}`, refusal: null }, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 },
  })
}
export const REPLY_HEADERS = { 'content-type': 'application/json' }

/** A local OpenAI-compatible server on 127.0.0.1 (recording only: replay never reaches it). */
export function modelServer(port = 0) {
  const server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      res.writeHead(200, REPLY_HEADERS)
      res.end(reply(body))
    })
  })
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)))
}

/**
 * Write a project of `files` test files with `tests` tests each.
 * kind: 'plain' (no plugin, no setup file), 'empty' (a setup file that does nothing, installed under node_modules as
 * fluxlab's is, so vitest loads it as an external dependency too), 'flux' (fluxlab plugin, `scenarios`
 * mode), 'msw' (setupServer in a setup file).
 * model: each test makes one chat completion with the OpenAI SDK to `port` (else a trivial test, no call).
 */
let install
/** The shared node_modules of the generated projects (made on first use; `removeInstall()` deletes it). */
function installDir() {
  if (install) return install
  const base = mkdtempSync(join(tmpdir(), 'fluxlab-bench-install-'))
  const nm = join(base, 'node_modules')
  mkdirSync(nm)
  for (const name of readdirSync(join(root, 'node_modules'))) if (name !== 'fluxlab' && name !== '.bin') symlinkSync(join(root, 'node_modules', name), join(nm, name), 'dir')
  for (const f of ['package.json', 'dist', 'jest-preset.cjs', 'jest-environment.cjs', 'jest-config.cjs']) cpSync(join(root, f), join(nm, 'fluxlab', f), { recursive: true })
  // A setup file that does nothing, as a package: what any external setup file costs vitest per test file.
  mkdirSync(join(nm, 'bench-empty-setup'))
  writeFileSync(join(nm, 'bench-empty-setup/package.json'), JSON.stringify({ name: 'bench-empty-setup', type: 'module', exports: './index.js' }))
  writeFileSync(join(nm, 'bench-empty-setup/index.js'), 'export {}\n')
  install = nm
  return nm
}
let stub
/**
 * An install where `vitest` is a stub (the hooks fluxlab's setup file registers do nothing) and `fluxlab` a copy of the
 * built package: its setup file imports there as in a test file's worker, minus vitest itself. Returns the stub's file.
 */
export function stubVitestInstall() {
  if (stub) return stub
  const base = mkdtempSync(join(tmpdir(), 'fluxlab-bench-stub-'))
  const nm = join(base, 'node_modules')
  mkdirSync(nm)
  for (const name of readdirSync(join(root, 'node_modules'))) if (!['fluxlab', 'vitest', '.bin'].includes(name)) symlinkSync(join(root, 'node_modules', name), join(nm, name), 'dir')
  for (const f of ['package.json', 'dist']) cpSync(join(root, f), join(nm, 'fluxlab', f), { recursive: true })
  mkdirSync(join(nm, 'vitest'))
  writeFileSync(join(nm, 'vitest/package.json'), JSON.stringify({ name: 'vitest', type: 'module', exports: './index.js' }))
  writeFileSync(
    join(nm, 'vitest/index.js'),
    ['const noop = () => {}', 'export const afterAll = noop, afterEach = noop, beforeAll = noop, beforeEach = noop, aroundEach = noop', 'export const expect = { extend: noop }', 'export const inject = () => undefined', ''].join('\n'),
  )
  stub = { base, vitest: join(nm, 'vitest/index.js'), dist: join(nm, 'fluxlab/dist') }
  return stub
}

export function removeInstall() {
  if (stub) rmSync(stub.base, { recursive: true, force: true })
  stub = undefined
  if (install) rmSync(join(install, '..'), { recursive: true, force: true })
  install = undefined
}

export function writeProject({ kind, files, tests, port, model, scenarios = 'per-test' }) {
  const dir = mkdtempSync(join(tmpdir(), `fluxlab-bench-${kind}-`))
  symlinkSync(installDir(), join(dir, 'node_modules'), 'dir')
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `bench-${kind}`, private: true, type: 'module' }))
  const host = `127.0.0.1:${port}`
  const config =
    kind === 'flux'
      ? `import { fluxlab } from 'fluxlab/vitest'\nexport default { plugins: [fluxlab({ scenarios: '${scenarios}', hosts: { '${host}': 'openai-chat' } })], test: { include: ['tests/**/*.test.js'] } }\n`
      : kind === 'msw'
        ? `export default { test: { include: ['tests/**/*.test.js'], setupFiles: ['./msw-setup.js'] } }\n`
        : kind === 'empty'
          ? `export default { test: { include: ['tests/**/*.test.js'], setupFiles: ['bench-empty-setup'] } }\n`
          : `export default { test: { include: ['tests/**/*.test.js'] } }\n`
  writeFileSync(join(dir, 'vitest.config.js'), config)
  if (kind === 'msw')
    writeFileSync(
      join(dir, 'msw-setup.js'),
      [
        `import { afterAll, afterEach } from 'vitest'`,
        `import { http } from 'msw'`,
        `import { setupServer } from 'msw/node'`,
        `import { reply, REPLY_HEADERS } from ${JSON.stringify(join(root, 'bench/suite-project.mjs'))}`,
        `const server = setupServer(http.post('http://${host}/v1/chat/completions', async ({ request }) => new Response(reply(await request.text()), { status: 200, headers: REPLY_HEADERS })))`,
        `// Listening at load, as fluxlab's setup file does: a client built at a test file's top level keeps the fetch it saw.`,
        `server.listen({ onUnhandledRequest: 'error' })`,
        `afterEach(() => server.resetHandlers())`,
        `afterAll(() => server.close())`,
        '',
      ].join('\n'),
    )
  mkdirSync(join(dir, 'tests'))
  for (let f = 0; f < files; f++) {
    const lines = [`import { expect, test } from 'vitest'`]
    if (model) {
      lines.push(`import OpenAI from 'openai'`)
      lines.push(`const client = new OpenAI({ apiKey: process.env.OPENAI_API_KEY, baseURL: 'http://${host}/v1', maxRetries: 0 })`)
    }
    for (let t = 0; t < tests; t++) {
      if (!model) {
        lines.push(`test('t${t}', () => { expect(${f} + ${t}).toBe(${f + t}) })`)
        continue
      }
      const q = `question f${f} t${t}`
      lines.push(
        `test('t${t}', async () => {`,
        `  const r = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: '${q}' }] })`,
        `  expect(r.choices[0].message.content).toBe('answer to ${q}')`,
        `})`,
      )
    }
    writeFileSync(join(dir, `tests/f${String(f).padStart(3, '0')}.test.js`), `${lines.join('\n')}\n`)
  }
  return dir
}

/**
 * A jest project of `files` test files with one trivial test each (CommonJS, no model call): `preset: 'fluxlab'`
 * when `flux` (explicit mode, or whole-suite mode with `scenarios`), else jest's defaults.
 */
export function writeJestProject({ files, flux, scenarios }) {
  const dir = mkdtempSync(join(tmpdir(), `fluxlab-bench-jest-${flux ? 'flux' : 'plain'}-`))
  symlinkSync(installDir(), join(dir, 'node_modules'), 'dir')
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'bench-jest', private: true }))
  const config = flux ? { preset: 'fluxlab', ...(scenarios ? { globals: { fluxlab: { scenarios } } } : {}) } : {}
  writeFileSync(join(dir, 'jest.config.js'), `module.exports = ${JSON.stringify({ ...config, testMatch: ['**/tests/**/*.test.js'] })}\n`)
  mkdirSync(join(dir, 'tests'))
  for (let f = 0; f < files; f++) writeFileSync(join(dir, `tests/f${String(f).padStart(3, '0')}.test.js`), `test('t0', () => { expect(${f} + 1).toBe(${f + 1}) })\n`)
  return dir
}

const TIMES = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/
/**
 * `vitest run` in `dir` as a child process: wall ms (spawn to exit), CPU ms (user + system of vitest and every
 * worker it waited for: bash's `times` after it), exit code and output. CPU time moves less on a loaded machine.
 */
export function runVitest(dir, args = [], env = {}) {
  return runTimed(dir, [VITEST, 'run', ...args], env)
}

/** `jest` in `dir` as a child process, timed as `runVitest` is. */
export function runJest(dir, args = [], env = {}) {
  return runTimed(dir, [JEST, ...args], env)
}

function runTimed(dir, argv, env) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const quoted = [process.execPath, ...argv].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ')
    const child = spawn('bash', ['-c', `${quoted}; code=$?; times >&2; exit $code`], {
      cwd: dir,
      env: { ...process.env, CI: '', FORCE_COLOR: '0', NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    child.on('error', reject)
    child.on('close', (code) => {
      const ms = performance.now() - t0
      const lines = output.trimEnd().split('\n')
      const m = TIMES.exec(lines.at(-1) ?? '')
      if (!m) return reject(new Error(`no \`times\` line after ${argv.slice(0, 2).join(' ')}:\n${output.slice(-2000)}`))
      const cpu = (Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1000
      resolve({ ms, cpu, code, output: lines.slice(0, -2).join('\n') })
    })
  })
}
