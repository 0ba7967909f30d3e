// SPEC §10 / STYLE "Failure modes": imports point down the layers and form no circles, and no
// export in src/ is dead. The rules are in .dependency-cruiser.cjs and knip.json.
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { cruise, type IViolation } from 'dependency-cruiser'
import { afterAll, describe, expect, test } from 'vitest'

const REPO = join(dirname(fileURLToPath(import.meta.url)), '../..')
const config = createRequire(import.meta.url)(join(REPO, '.dependency-cruiser.cjs')) as { forbidden: unknown[]; options: Record<string, unknown> }

async function violations(baseDir: string): Promise<string[]> {
  const result = await cruise(['src'], { ...(config.options as object), baseDir, validate: true, ruleSet: { forbidden: config.forbidden } as never })
  const out = result.output as { summary: { violations: IViolation[] } }
  return out.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (${v.cycle.map((c) => c.name).join(' → ')})` : ''}`)
}

describe('the layers of src/', () => {
  test('no import points up a layer, closes a circle, or reaches msw or a runner from the wrong place', async () => {
    expect(await violations(REPO)).toEqual([])
  }, 120_000)

  const tree = mkdtempSync(join(tmpdir(), 'flux-layers-'))
  afterAll(() => rmSync(tree, { recursive: true, force: true }))
  const write = (file: string, text: string) => {
    mkdirSync(dirname(join(tree, file)), { recursive: true })
    writeFileSync(join(tree, file), text)
  }

  test('the check fails on an upward import and on a circle', async () => {
    write('src/cassette/tape.ts', "import { run } from '../scenario/run.js'\nexport const tape = () => run\n")
    write('src/scenario/run.ts', "import { tape } from '../cassette/tape.js'\nexport const run = () => tape\n")
    write('src/reporter/summary.ts', "import { cli } from '../cli/main.js'\nexport const summary = cli\n")
    write('src/cli/main.ts', 'export const cli = 1\n')
    const found = await violations(tree)
    expect(found).toContain('no-upward-from-tape: src/cassette/tape.ts → src/scenario/run.ts')
    expect(found).toContain('reporter-not-cli: src/reporter/summary.ts → src/cli/main.ts')
    expect(found.some((v) => v.startsWith('no-circular:'))).toBe(true)
  }, 60_000)
})

test('knip finds no dead export, file or dependency in src/', () => {
  const knip = spawnSync(process.execPath, [join(REPO, 'node_modules/knip/bin/knip.js'), '--no-progress', '--no-config-hints'], { cwd: REPO, encoding: 'utf8' })
  // Remove the unused export (or un-export it) that knip names; an entry point goes in knip.json.
  expect(`${knip.stdout}${knip.stderr}`.trim()).toBe('')
  expect(knip.status).toBe(0)
}, 180_000)
