// Issue 28, "docs that cannot drift": docs/configuration.md's options and environment tables are written from
// src/context/option-docs.ts (`npm run docs:options`), and this test holds the three together. The rows are the
// options `FluxOptions` declares, with their declared types; the page holds the tables the rows make; and every
// `FLUX_*` variable src/ reads or sets is named in the page's environment section (the table, the table of what
// fluxlab sets, or the internal list), while every one the section names is still in src/.
import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, test } from 'vitest'
import { ENV_ROWS, OPTION_ROWS, withTables } from '../../src/context/option-docs.js'

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)))
const PAGE = 'docs/configuration.md'
const FLUX_NAME = /^FLUX_[A-Z0-9_]*[A-Z0-9]$/

const parse = (file: string) => ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true)

/** `FluxOptions`' properties with their declared type, an alias declared in options.ts spelled out (`EndCheck`). */
function declaredOptions(): Map<string, string> {
  const source = parse('src/context/options.ts')
  const aliases = new Map<string, string>()
  let members: ts.NodeArray<ts.TypeElement> | undefined
  for (const s of source.statements) {
    if (ts.isTypeAliasDeclaration(s)) aliases.set(s.name.text, s.type.getText(source))
    if (ts.isInterfaceDeclaration(s) && s.name.text === 'FluxOptions') members = s.members
  }
  const out = new Map<string, string>()
  for (const m of members ?? []) {
    if (!ts.isPropertySignature(m) || !m.type) continue
    const type = m.type.getText(source)
    out.set(m.name.getText(source), aliases.get(type) ?? type)
  }
  return out
}

/** The codes of thrown errors (`FluxErrorCode`): `FLUX_*` names that are no variable. */
function errorCodes(): Set<string> {
  const source = parse('src/errors.ts')
  const alias = source.statements.find((s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === 'FluxErrorCode')
  return new Set(alias && ts.isUnionTypeNode(alias.type) ? alias.type.types.map((t) => t.getText(source).slice(1, -1)) : [])
}

/** A warning's code (`process.emitWarning(text, { code: 'FLUX_HTTP2_UNSEEN' })`), no variable either. */
const isCode = (node: ts.StringLiteral) => ts.isPropertyAssignment(node.parent) && node.parent.name.getText() === 'code'

/**
 * The `FLUX_*` variables src/ reads or sets, each with one place: a property (`process.env.FLUX_OFFLINE`,
 * `tree.FLUX_TREE_HOSTS`, `{ FLUX_TREE: path }`) or a whole string that is no error code (`readFlag('FLUX_OFFLINE')`,
 * `env['FLUX_X']`; `FLUX_OFFLINE` is both).
 */
function variablesInSrc(codes: Set<string>): Map<string, string> {
  const files = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
    .map((f) => join('src', f).split('\\').join('/'))
    // the rows themselves name the variables they document: they are no evidence that src/ uses one
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'src/context/option-docs.ts')
  const found = new Map<string, string>()
  for (const file of files) {
    const source = parse(file)
    const visit = (node: ts.Node): void => {
      const name = ts.isPropertyAccessExpression(node)
        ? node.name.text
        : ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node)
          ? node.name.getText(source)
          : ts.isStringLiteral(node) && !codes.has(node.text) && !isCode(node)
            ? node.text
            : undefined
      if (name && FLUX_NAME.test(name) && !found.has(name)) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1
        found.set(name, `${file}:${line}`)
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
  return found
}

const page = readFileSync(join(ROOT, PAGE), 'utf8')
/** The page's "## Environment variables" section, up to the next heading. */
const envSection = /^## Environment variables\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(page)?.[1] ?? ''

describe(PAGE, () => {
  test('the options table has a row for each option FluxOptions declares, with its type', () => {
    const declared = declaredOptions()
    expect(declared.size).toBeGreaterThan(10)
    const rows = new Map(Object.entries(OPTION_ROWS).map(([name, r]) => [name, r.type]))
    expect(
      [...declared.keys()].filter((k) => !rows.has(k)),
      'options of FluxOptions with no row in src/context/option-docs.ts',
    ).toEqual([])
    expect(
      [...rows.keys()].filter((k) => !declared.has(k)),
      'rows in src/context/option-docs.ts that FluxOptions does not declare',
    ).toEqual([])
    const wrong = [...rows].filter(([k, type]) => declared.get(k) !== type).map(([k, type]) => `${k}: row says ${type}, FluxOptions says ${declared.get(k)}`)
    expect(wrong, 'option types in src/context/option-docs.ts that FluxOptions declares otherwise').toEqual([])
  })

  test('an option its variable sets names the variable, and the variable has a row naming the option', () => {
    const env = new Map(ENV_ROWS.map((r) => [r.name, r.doc]))
    const bad = Object.entries(OPTION_ROWS).flatMap(([name, r]: [string, { default: string; env?: string }]) => {
      if (!r.env) return /`FLUX_/.test(r.default) ? [`${name}: its default names a variable; give the row \`env\``] : []
      if (!r.default.includes(`\`${r.env}\``)) return [`${name}: its default does not name ${r.env}`]
      if (!env.has(r.env)) return [`${name}: ${r.env} has no row in the environment table`]
      return env.get(r.env)?.includes(`\`${name}\``) ? [] : [`${r.env}: its row does not name the option \`${name}\``]
    })
    expect(bad, 'options and variables whose rows in src/context/option-docs.ts do not name each other').toEqual([])
  })

  test('the tables on the page are the ones the rows make', () => {
    // a failure here: edit src/context/option-docs.ts, not the page, and run `npm run docs:options`.
    const blocks = (text: string) => [...text.matchAll(/<!-- (\w+):start[^>]*-->\n[\s\S]*?<!-- \1:end -->/g)].map((m) => m[0])
    expect(blocks(page).length, `${PAGE} keeps its <!-- options:start --> and <!-- env:start --> markers`).toBe(2)
    expect(blocks(page), `${PAGE}'s tables differ from src/context/option-docs.ts: run \`npm run docs:options\``).toEqual(blocks(withTables(page)))
  })

  test('every FLUX_* variable src/ reads or sets is named in the environment section, and every one it names is in src/', () => {
    const codes = errorCodes()
    expect(codes.has('FLUX_BAD_CONFIG')).toBe(true)
    const inSrc = variablesInSrc(codes)
    expect(inSrc.size).toBeGreaterThan(20)
    const named = new Set([...envSection.matchAll(/`(FLUX_[A-Z0-9_]+)/g)].map((m) => m[1]))
    const undocumented = [...inSrc].filter(([name]) => !named.has(name)).map(([name, where]) => `${name} (${where})`)
    expect(undocumented, `variables src/ uses that ${PAGE}'s "Environment variables" names nowhere (a row in option-docs.ts, or the internal list)`).toEqual([])
    expect(
      [...named].filter((n) => !inSrc.has(n) && !codes.has(n)),
      `variables ${PAGE}'s "Environment variables" names that src/ never uses`,
    ).toEqual([])
  })
})
