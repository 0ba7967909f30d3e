/**
 * Issue 11 item 9: two versions of fluxlab loaded in one process (a nested node_modules, a linked
 * checkout next to an installed package) are said out loud when the second loads, and a scenario
 * opened where only the other copy's setup runs names the copies, not a missing plugin.
 */
import { execFileSync } from 'node:child_process'
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { assertBuilt, REPO } from '../e2e/support/project.js'

describe('two copies of fluxlab in one process', () => {
  // Inside the repo's node_modules, so the copies resolve their dependencies as an installed package does.
  const root = mkdtempSync(join(REPO, 'node_modules', '.flux-two-copies-'))
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  /** A copy of the built package under `root/<name>`, with its version string replaced. */
  function copyAs(name: string, version: string): string {
    const dir = join(root, name)
    cpSync(join(REPO, 'dist'), join(dir, 'dist'), { recursive: true })
    cpSync(join(REPO, 'package.json'), join(dir, 'package.json'))
    for (const f of readdirSync(join(dir, 'dist')).filter((f) => f.endsWith('.js') || f.endsWith('.cjs'))) {
      const p = join(dir, 'dist', f)
      const text = readFileSync(p, 'utf8')
      if (text.includes('var VERSION = "0.1.0"')) writeFileSync(p, text.replace('var VERSION = "0.1.0"', `var VERSION = "${version}"`))
    }
    return dir
  }

  const run = (script: string): string => {
    const file = join(root, `probe-${Math.random().toString(36).slice(2)}.mjs`)
    writeFileSync(file, script)
    return execFileSync(process.execPath, [file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } }) + ''
  }

  test('a second version warns once when it loads, naming both and the fix; the same version twice does not', () => {
    assertBuilt()
    const a = copyAs('a', '0.1.0')
    const b = copyAs('b', '0.9.9')
    const a2 = copyAs('a2', '0.1.0')
    const probe = (second: string) =>
      `const warns = []; console.warn = (m) => warns.push(String(m));\n` +
      `await import(${JSON.stringify(join(a, 'dist/index.js'))});\n` +
      `await import(${JSON.stringify(join(second, 'dist/index.js'))});\n` +
      `process.stdout.write(JSON.stringify(warns))`
    const clash = JSON.parse(run(probe(b))) as string[]
    expect(clash).toHaveLength(1)
    expect(clash[0]).toContain('2 copies of fluxlab are loaded: 0.1.0 (')
    expect(clash[0]).toContain('and 0.9.9 (')
    expect(clash[0]).toContain('npm ls fluxlab')
    expect(JSON.parse(run(probe(a2)))).toEqual([])
  })

  test('the ESM and CJS builds of one copy are one copy', () => {
    assertBuilt()
    const out = run(
      `import { createRequire } from 'node:module'\nconst warns = []; console.warn = (m) => warns.push(String(m));\n` +
        `await import(${JSON.stringify(join(REPO, 'dist/index.js'))});\ncreateRequire(import.meta.url)(${JSON.stringify(join(REPO, 'dist/index.cjs'))});\n` +
        `process.stdout.write(JSON.stringify(warns))`,
    )
    expect(JSON.parse(out)).toEqual([])
  })
})
