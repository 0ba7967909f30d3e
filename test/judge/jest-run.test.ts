/**
 * toPassJudge under jest: bundles the matcher from src/ by its package name (esbuild, CommonJS) and runs
 * jest/to-pass-judge.test.cjs in a jest 30 child process, with jest's own `expect`.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { afterAll, expect, it } from 'vitest'

const REPO = fileURLToPath(new URL('../../', import.meta.url))
const work = mkdtempSync(join(tmpdir(), 'flux-judge-jest-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

function run(cmd: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, cmd, { cwd: REPO, env: { ...process.env, ...env, FORCE_COLOR: '0', NO_COLOR: '1' } })
    let output = ''
    child.stdout.on('data', (d: Buffer) => (output += d))
    child.stderr.on('data', (d: Buffer) => (output += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, output }))
  })
}

it('runs toPassJudge under jest 30 and every test passes', async () => {
  const bundle = join(work, 'judge.cjs')
  await build({
    stdin: {
      contents: [
        "export { toPassJudge } from 'fluxlab/matchers'",
        "export { Outcome, Rubric } from 'fluxlab'",
        "export { judgeOnTape } from './src/judge/index.ts'",
      ].join('\n'),
      resolveDir: REPO,
      loader: 'ts',
    },
    // The package names resolve to src/, as in vitest.config.ts: no build needed.
    alias: { 'fluxlab/matchers': './src/matchers/index.ts', fluxlab: './src/index.ts' },
    // What tsup's shims do in the CommonJS build: `import.meta.url` is the module's own file, so the matchers'
    // jest-matcher-utils and jest-diff, loaded on first use (issue 14), resolve from the repo, not from this temp dir.
    define: { 'import.meta.url': JSON.stringify(pathToFileURL(join(REPO, 'src/matchers/utils/jest-utils.ts')).href) },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile: bundle,
    logLevel: 'silent',
  })
  const config = join(work, 'jest.config.cjs')
  writeFileSync(
    config,
    `module.exports = ${JSON.stringify({ rootDir: join(REPO, 'test/judge/jest'), testEnvironment: 'node', testMatch: ['**/*.test.cjs'], transform: {} })}\n`,
  )
  const { code, output } = await run(['node_modules/jest/bin/jest.js', '--ci', '--verbose', '--config', config], {
    FLUX_JUDGE_BUNDLE: bundle,
    FLUX_GOLDEN: '',
    CI: '',
  })
  expect(output).toMatch(/Tests:\s+4 passed, 4 total/)
  expect(output).toContain('toPassJudge under jest')
  expect(code, output).toBe(0)
}, 60_000)
