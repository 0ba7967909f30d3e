// SPEC §10 / STYLE "Failure modes": imports point down the layers and form no circles, and no
// export in src/ is dead. The rules are in .dependency-cruiser.cjs and knip.json.
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, relative, sep } from 'node:path'
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

  /** A scratch tree of source files, removed after the suite. */
  const scratch = (prefix: string) => {
    const root = mkdtempSync(join(tmpdir(), prefix))
    afterAll(() => rmSync(root, { recursive: true, force: true }))
    const write = (file: string, text: string) => {
      mkdirSync(dirname(join(root, file)), { recursive: true })
      writeFileSync(join(root, file), text)
    }
    return { root, write }
  }
  const { root: tree, write } = scratch('flux-layers-')
  const { root: tied, write: put } = scratch('flux-ties-')

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

  test('the check fails on two folders that import each other, with no circle between their modules', async () => {
    put('src/scenario/run.ts', "import { step } from '../judge/step.js'\nexport const run = () => step\n")
    put('src/judge/verdict.ts', "import { outcome } from '../scenario/outcome.js'\nexport const verdict = () => outcome\n")
    put('src/judge/step.ts', 'export const step = 1\n')
    put('src/scenario/outcome.ts', 'export const outcome = 1\n')
    put('src/plugin/setup.ts', "import type { Provided } from '../vitest.js'\nexport const setup = (p: Provided) => p\n")
    put('src/vitest.ts', "import { version } from './plugin/version.js'\nexport type Provided = { v: typeof version }\n")
    put('src/plugin/version.ts', 'export const version = 1\n')
    put('src/errors.ts', "import { step } from './judge/step.js'\nexport const errors = step\n")
    put('src/secrets/redact.ts', "import { errors } from '../errors.js'\nexport const redact = errors\n")
    const found = await violations(tied)
    expect(found.filter((v) => v.startsWith('no-two-way-tie:')).sort()).toEqual([
      'no-two-way-tie: src/judge → src/scenario (src/scenario → src/judge)',
      'no-two-way-tie: src/scenario → src/judge (src/judge → src/scenario)',
    ])
    expect(found).toContain('no-two-way-tie-with-a-top-file: src/plugin/setup.ts → src/vitest.ts')
    expect(found).toContain('no-two-way-tie-from-a-top-leaf: src/errors.ts → src/judge/step.ts')
    expect(found).toContain('secrets-import-nothing: src/secrets/redact.ts → src/errors.ts')
    expect(found.some((v) => v.startsWith('no-circular:'))).toBe(false)
  }, 60_000)

  test('every file and folder the rules name exists in src/', () => {
    const names = new Set<string>()
    for (const entry of readdirSync(join(REPO, 'src'), { recursive: true, withFileTypes: true })) {
      const path = relative(REPO, join(entry.parentPath, entry.name)).split(sep).join('/')
      names.add(entry.isDirectory() ? `${path}/` : path)
    }
    const patterns = (config.forbidden as Array<{ from: Record<string, unknown>; to: Record<string, unknown> }>).flatMap((r) => [
      r.from.path,
      r.from.pathNot,
      r.to.path,
      r.to.pathNot,
    ])
    const missing = patterns
      .filter((p): p is string => typeof p === 'string')
      .flatMap(alternatives)
      .filter((a) => a.startsWith('^src/') && (a.endsWith('/') || a.endsWith('\\.ts$')) && !a.includes('['))
      .filter((a) => ![...names].some((n) => new RegExp(a).test(n)))
    expect([...new Set(missing)]).toEqual([])
  })
})

/** The alternatives of a pattern, one group of names at the most expanded: `^src/(a|b)/|^c$` is `^src/a/`, `^src/b/`, `^c$`. */
function alternatives(pattern: string): string[] {
  const out: string[] = []
  let depth = 0
  let start = 0
  for (let i = 0; i <= pattern.length; i++) {
    const c = pattern[i]
    if (c === '(') depth++
    else if (c === ')') depth--
    else if ((c === '|' && depth === 0) || c === undefined) {
      const alt = pattern.slice(start, i)
      const group = /^([^(]*)\(([^()]*)\)(.*)$/.exec(alt)
      out.push(...(group ? group[2].split('|').map((name) => `${group[1]}${name}${group[3]}`) : [alt]))
      start = i + 1
    }
  }
  return out
}

test('knip finds no dead export, file or dependency in src/', () => {
  const knip = spawnSync(process.execPath, [join(REPO, 'node_modules/knip/bin/knip.js'), '--no-progress', '--no-config-hints'], { cwd: REPO, encoding: 'utf8' })
  // Remove the unused export (or un-export it) that knip names; an entry point goes in knip.json.
  expect(`${knip.stdout}${knip.stderr}`.trim()).toBe('')
  expect(knip.status).toBe(0)
}, 180_000)
