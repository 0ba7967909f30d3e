// The README's first command, `npm run example`, replays the example agents offline with no key set (README
// "first screen"): its vitest run, with every provider key unset, FLUX_OFFLINE=1 and CI=1, passes every test.
// `npm test` builds and links fluxlab first, as `npm run example` does.
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, test } from 'vitest'

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)))

test('npm run example passes offline with every provider key unset (the README promises no key)', () => {
  const script = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.example
  expect(script).toContain('FLUX_OFFLINE=1 vitest run --config examples/vitest.config.ts')
  const env: NodeJS.ProcessEnv = { ...process.env, FLUX_OFFLINE: '1', CI: '1' }
  for (const k of Object.keys(env))
    if (/_API_KEY$|^AWS_|_TOKEN$/.test(k) || k.startsWith('FLUX_KEYS') || k === 'FLUX_GOLDEN' || k === 'VITEST' || k.startsWith('VITEST_')) delete env[k]
  const run = spawnSync(process.execPath, [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'examples/vitest.config.ts'], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
  })
  const output = `${run.stdout}${run.stderr}`
  expect(run.status, output).toBe(0)
  expect(output).toMatch(/tests \d+ passed, 0 failed, 0 skipped/)
  expect(output).not.toMatch(/Missing credentials/)
}, 120_000)

test('npm run example replays the Playwright example (examples/chat-app) offline, in a real browser, with every key unset', () => {
  const script = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.example
  expect(script).toContain('FLUX_OFFLINE=1 playwright test -c examples/chat-app')
  const env: NodeJS.ProcessEnv = { ...process.env, FLUX_OFFLINE: '1', CI: '1', PW_JSON: join(ROOT, '.e2e-tmp/example-command-report.json') }
  for (const k of Object.keys(env))
    if (
      /_API_KEY$|^AWS_|_TOKEN$|_BASE_URL$/.test(k) ||
      k.startsWith('FLUX_KEYS') ||
      k === 'FLUX_GOLDEN' ||
      k === 'FLUX_UPSTREAM' ||
      k === 'VITEST' ||
      k.startsWith('VITEST_')
    )
      delete env[k]
  const run = spawnSync(process.execPath, [join(ROOT, 'node_modules/@playwright/test/cli.js'), 'test', '-c', 'examples/chat-app'], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
  })
  const output = `${run.stdout}${run.stderr}`
  expect(run.status, output).toBe(0)
  expect(output).toMatch(/Running 5 tests using 2 workers/)
  expect(output).toMatch(/5 passed/)
}, 120_000)
