// SPEC §10 / STYLE "Layout shows the architecture": a provider is one folder and one registry line.
// So no code in src/ outside src/providers/ decides anything by a family's name: it asks the
// family's codec (`codecFor(family)`) instead. This test parses every source file and fails on a
// family name used in a comparison (`family === 'gemini'`), a `case 'anthropic':`, or as an object
// key (`{ 'openai-chat': … }`, `{ gemini: … }`, `x['anthropic']`, `x.gemini`), printing file:line.
// @note Type positions are not checked (a union such as `'openai' | 'anthropic' | 'gemini'`
// decides nothing at run time), nor plain values (`family: 'openai-chat'` in a test outcome, a
// JSDoc example). Unit tests (`*.test.ts`) name families as data and are not checked either.
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, test } from 'vitest'
import { codecs } from '../../src/providers/registry.js'

const REPO = join(dirname(fileURLToPath(import.meta.url)), '../..')

/** Every provider family, from the registry: a new family is checked as soon as it has its registry line. */
const FAMILIES: ReadonlySet<string> = new Set(codecs.map((c) => c.family))

/**
 * Mentions allowed outside src/providers/, each with its reason: `file` and a piece of the offending line.
 * Keep it short; a stale entry (one that no longer matches) fails the test too.
 */
const ALLOWED: ReadonlyArray<{ file: string; line: string; reason: string }> = []

/** A family's name as a word of a string (not the `anthropic/` of a judge model id, nor the `anthropic.` of a Bedrock model id). */
const NAMED = new RegExp(`(?<![\\w.-])(${[...FAMILIES].join('|')})(?![\\w/-])`)

/**
 * The strings (literals and template parts) that name a family: a list of families kept by hand, or a decision by name.
 * Issue 40: every list of families is derived from the registry, so none is written out.
 */
function namingStrings(fileName: string, text: string): Array<{ line: number; text: string }> {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const found: Array<{ line: number; text: string }> = []
  const visit = (node: ts.Node): void => {
    const isString = ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)
    if (isString && NAMED.test(node.text)) found.push({ line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1, text: node.text })
    ts.forEachChild(node, visit)
  }
  visit(sf)
  return found
}

/** Where a family name is used to decide something, as `line: why`. */
function offenders(fileName: string, text: string): Array<{ line: number; text: string; why: string }> {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const found: Array<{ line: number; text: string; why: string }> = []
  const report = (node: ts.Node, why: string) => {
    const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line
    found.push({ line: line + 1, text: text.split('\n')[line].trim(), why })
  }
  const isFamily = (n: ts.Node | undefined): n is ts.StringLiteralLike | ts.Identifier =>
    !!n && (ts.isStringLiteralLike(n) || ts.isIdentifier(n)) && FAMILIES.has(n.text)
  const isLiteralFamily = (n: ts.Node): n is ts.StringLiteralLike => ts.isStringLiteralLike(n) && FAMILIES.has(n.text)
  const EQUALITY = new Set([
    ts.SyntaxKind.EqualsEqualsEqualsToken,
    ts.SyntaxKind.ExclamationEqualsEqualsToken,
    ts.SyntaxKind.EqualsEqualsToken,
    ts.SyntaxKind.ExclamationEqualsToken,
  ])

  const visit = (node: ts.Node): void => {
    if (ts.isBinaryExpression(node) && EQUALITY.has(node.operatorToken.kind) && (isLiteralFamily(node.left) || isLiteralFamily(node.right)))
      report(node, `compares with '${(isLiteralFamily(node.left) ? node.left : (node.right as ts.StringLiteralLike)).text}'`)
    else if (ts.isCaseClause(node) && isLiteralFamily(node.expression)) report(node, `case '${node.expression.text}'`)
    else if (ts.isObjectLiteralExpression(node)) {
      for (const p of node.properties) {
        const name = p.name && ts.isComputedPropertyName(p.name) ? p.name.expression : p.name
        if ((ts.isPropertyAssignment(p) || ts.isMethodDeclaration(p) || ts.isShorthandPropertyAssignment(p)) && isFamily(name))
          report(p, `object key '${name.text}'`)
      }
    } else if (ts.isElementAccessExpression(node) && isLiteralFamily(node.argumentExpression)) report(node, `reads key '${node.argumentExpression.text}'`)
    else if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.name) && FAMILIES.has(node.name.text)) report(node, `reads key '${node.name.text}'`)
    ts.forEachChild(node, visit)
  }
  visit(sf)
  return found
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name)
    if (e.isDirectory()) return p === join(REPO, 'src', 'providers') ? [] : sourceFiles(p)
    return /\.(c|m)?ts$/.test(e.name) && !/\.test\.ts$/.test(e.name) ? [p] : []
  })
}

describe('provider families outside src/providers/', () => {
  test('no file in src/ outside src/providers/ switches on a family name', () => {
    const used = new Set<(typeof ALLOWED)[number]>()
    const failures: string[] = []
    for (const file of sourceFiles(join(REPO, 'src'))) {
      const rel = relative(REPO, file)
      for (const o of offenders(rel, readFileSync(file, 'utf8'))) {
        const allow = ALLOWED.find((a) => a.file === rel && o.text.includes(a.line))
        if (allow) used.add(allow)
        else failures.push(`${rel}:${o.line}: ${o.why}: ${o.text}`)
      }
    }
    for (const a of ALLOWED) if (!used.has(a)) failures.push(`${a.file}: the allowed mention "${a.line}" is gone; remove it from ALLOWED`)
    // Move the decision into the family's folder: a codec method or field (src/providers/types.ts), called through codecFor(family).
    expect(failures.join('\n')).toBe('')
  })

  test('no string in src/ outside src/providers/ names a family: every list of them is derived from the registry', () => {
    const found = sourceFiles(join(REPO, 'src')).flatMap((file) =>
      namingStrings(file, readFileSync(file, 'utf8')).map((s) => `${relative(REPO, file)}:${s.line}: ${JSON.stringify(s.text)}`),
    )
    // Derive it from `codecs` or `familyTables` (src/providers/registry.ts), or ask the family's codec for the fact.
    expect(found).toEqual([])
  })

  test('the string check finds a family named in a string, and not a judge model id nor a Bedrock model id', () => {
    const sample = [
      "const FAMILIES = ['openai-chat', 'anthropic'] // 1 (twice)",
      'const doc = `one of (\\`gemini\\`, ${x}, \\`bedrock\\`)` // 2 (twice: head and tail)',
      'const hint = "Rubric.model(\'anthropic/claude-haiku-4-5\')" // 3: a judge model id',
      "const id = 'us.anthropic.claude-haiku-4-5-v1:0' // 4: a Bedrock model id",
      "const model = 'gemini-2.5-flash' // 5: a model id",
      '// a comment naming gemini-live // 6',
    ].join('\n')
    expect(namingStrings('sample.ts', sample).map((s) => `${s.line}: ${s.text}`)).toEqual([
      '1: openai-chat',
      '1: anthropic',
      '2: one of (`gemini`, ',
      '2: , `bedrock`)',
    ])
  })

  test('the check finds comparisons, cases and object keys, and ignores types and plain values', () => {
    const sample = [
      "type F = 'openai-chat' | 'gemini'", // 1 type: ignored
      'interface D { anthropic: string }', // 2 type: ignored
      "const a = { family: 'openai-chat' }", // 3 a value: ignored
      "if (family === 'gemini') go()", // 4
      "switch (f) { case 'anthropic': break }", // 5
      "const m = { 'openai-responses': 1, gemini: 2 }", // 6 (twice)
      "const d = DEFAULTS['openai-embeddings'] ?? DEFAULTS.anthropic", // 7 (twice)
      "const ok = 'anthropic' !== family", // 8
    ].join('\n')
    expect(offenders('sample.ts', sample).map((o) => `${o.line}: ${o.why}`)).toEqual([
      "4: compares with 'gemini'",
      "5: case 'anthropic'",
      "6: object key 'openai-responses'",
      "6: object key 'gemini'",
      "7: reads key 'openai-embeddings'",
      "7: reads key 'anthropic'",
      "8: compares with 'anthropic'",
    ])
  })
})
