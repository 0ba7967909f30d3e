// Issue 40 §4 / SPEC §10: each runner is one adapter registered once (src/runners/) and the tape layer names none.
// Below the entry layer no code decides anything by a runner's name (`runner === 'jest'`, `case 'vitest':`, an object
// keyed by runner): it asks the runner's adapter (`runnerAdapter(name)`). src/cassette holds no runner's name at all:
// a fixture's `source.runner` is an open token. This test parses every source file and prints file:line.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, test } from 'vitest'
import { runnerAdapter } from '../../src/runners/registry.js'

const REPO = join(dirname(fileURLToPath(import.meta.url)), '../..')
const RUNNERS = new Set(['vitest', 'jest', 'playwright'])
/** The entry layer (.dependency-cruiser.cjs): the only code that knows a runner exists, and the adapters themselves. */
const KNOWS_RUNNERS = /^src\/(cli|reporter|plugin|runners)\/|^src\/(vitest|jest|playwright|index)\.ts$/

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name)
    if (e.isDirectory()) return sourceFiles(p)
    return /\.ts$/.test(e.name) && !/\.test\.ts$/.test(e.name) && !/\/utils\/test-/.test(p) ? [p] : []
  })
}

/** `file:line: text (why)` for each decision by a runner's name, and (where `anyString`) each string naming one. */
function offenders(file: string, anyString: boolean): string[] {
  const text = readFileSync(file, 'utf8')
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const found: string[] = []
  const report = (node: ts.Node, why: string) => {
    const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line
    found.push(`${relative(REPO, file)}:${line + 1}: ${text.split('\n')[line].trim()} (${why})`)
  }
  const isRunner = (n: ts.Node | undefined): n is ts.StringLiteralLike => !!n && ts.isStringLiteralLike(n) && RUNNERS.has(n.text)
  const EQUALITY = new Set([
    ts.SyntaxKind.EqualsEqualsEqualsToken,
    ts.SyntaxKind.ExclamationEqualsEqualsToken,
    ts.SyntaxKind.EqualsEqualsToken,
    ts.SyntaxKind.ExclamationEqualsToken,
  ])
  const visit = (node: ts.Node): void => {
    // @note a type position (`runner: 'jest' | 'vitest'`) decides nothing at run time, but in the tape layer it is a list kept by hand
    if (ts.isLiteralTypeNode(node) && !anyString) return
    if (ts.isBinaryExpression(node) && EQUALITY.has(node.operatorToken.kind) && (isRunner(node.left) || isRunner(node.right)))
      report(node, 'compares with a runner')
    else if (ts.isCaseClause(node) && isRunner(node.expression)) report(node, 'case on a runner')
    else if (ts.isPropertyAssignment(node) && node.name && (isRunner(node.name) || (ts.isIdentifier(node.name) && RUNNERS.has(node.name.text))))
      report(node, 'object keyed by runner')
    else if (anyString && isRunner(node) && !ts.isImportDeclaration(node.parent)) report(node, 'names a runner in the tape layer')
    ts.forEachChild(node, visit)
  }
  visit(sf)
  return found
}

describe('runners: one adapter each, named by no layer below the entry', () => {
  const files = sourceFiles(join(REPO, 'src')).filter((f) => !KNOWS_RUNNERS.test(relative(REPO, f)))

  test('the runners this test checks for are the registered ones', () => {
    for (const name of RUNNERS) expect(runnerAdapter(name)?.name).toBe(name)
  })

  test('no code below the entry decides by a runner name, and src/cassette names none', () => {
    const found = files.flatMap((f) => offenders(f, relative(REPO, f).startsWith('src/cassette/')))
    expect(found).toEqual([])
  })

  test('the check finds a decision by name and a runner list in the tape layer', () => {
    const dir = mkdtempSync(join(tmpdir(), 'flux-runners-'))
    const probe = join(dir, 'probe.ts')
    try {
      writeFileSync(probe, "export const a = (r: string) => r === 'jest'\nexport const b: 'vitest' | 'jest' = 'vitest'\n")
      expect(offenders(probe, false).map((s) => s.replace(/^.*?:(\d+): .*\((.*)\)$/, '$1 $2'))).toEqual(['1 compares with a runner'])
      expect(offenders(probe, true).length).toBe(5)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
