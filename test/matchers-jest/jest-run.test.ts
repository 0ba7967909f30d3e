import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

const REPO = fileURLToPath(new URL('../../', import.meta.url))

function runJest(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['node_modules/jest/bin/jest.js', '--ci', '--verbose', '--config', 'test/matchers-jest/jest.config.cjs'], {
      cwd: REPO,
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
    })
    let output = ''
    child.stdout.on('data', (d: Buffer) => (output += d))
    child.stderr.on('data', (d: Buffer) => (output += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, output: output.replace(/\u001b\[[0-9;]*m/g, '') }))
  })
}

it('runs the built matchers under jest 30 and every test passes', async () => {
  for (const f of ['dist/index.cjs', 'dist/matchers.cjs'])
    if (!existsSync(`${REPO}${f}`)) throw new Error(`${f} is missing. Build first: npm run build (npm test does it).`)
  const { code, output } = await runJest()
  expect(output).toMatch(/Tests:\s+\d+ passed, \d+ total/)
  for (const name of ['toCall under jest', 'toCallWith under jest', 'toNeverCall under jest', 'toHaveTextContaining under jest', 'toBeHermetic under jest'])
    expect(output).toContain(name)
  expect(output).toContain('honours a custom equality tester')
  expect(code, output).toBe(0)
}, 60_000)
