// Issue 25, "make the architecture page true": every file and every name docs/architecture.md points at exists in
// the code as it is now. A redesign that removes a function or moves a file fails here until the page follows it:
// every `src/…` (and `test/…`) path on the page is a file or folder, a bare `name.ts` in backticks is some file under
// src/, and every identifier in backticks (`Run.handle`, `arrive()`, `router.preempts`) is declared in src/ (a
// function, class, method, property, variable, parameter or import of it). Names from other libraries the page
// mentions are listed below, with where they come from.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, test } from 'vitest'

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)))
const PAGE = 'docs/architecture.md'

/** Names on the page that src/ does not declare, because another library, a runtime or the user does. */
const FOREIGN = new Map<string, string>([
  ['setupServer', 'msw'],
  ['listen', "msw's setupServer().listen()"],
  ['onUnhandledRequest', "msw's option"],
  ['undici', 'the npm package'],
  ['ws', 'the npm package'],
  ['dispatcher', "undici's request option"],
  ['DispatcherBase', 'undici'],
  ['Pool', 'undici'],
  ['Client', 'undici'],
  ['ProxyAgent', 'undici'],
  ['Interceptor', '@mswjs/interceptors'],
  ['diagnostics_channel', 'node:diagnostics_channel'],
  ['await', 'the language'],
  ['yield', 'the language'],
])

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) return sourceFiles(p)
    return /\.ts$/.test(name) && !/\.test\.ts$/.test(name) ? [p] : []
  })
}

/** The nodes that declare a name (a property access or a call only uses one). */
const DECLARES = new Set<ts.SyntaxKind>([
  ts.SyntaxKind.FunctionDeclaration,
  ts.SyntaxKind.ClassDeclaration,
  ts.SyntaxKind.InterfaceDeclaration,
  ts.SyntaxKind.TypeAliasDeclaration,
  ts.SyntaxKind.MethodDeclaration,
  ts.SyntaxKind.MethodSignature,
  ts.SyntaxKind.PropertyDeclaration,
  ts.SyntaxKind.PropertySignature,
  ts.SyntaxKind.PropertyAssignment,
  ts.SyntaxKind.ShorthandPropertyAssignment,
  ts.SyntaxKind.GetAccessor,
  ts.SyntaxKind.VariableDeclaration,
  ts.SyntaxKind.Parameter,
  ts.SyntaxKind.BindingElement,
  ts.SyntaxKind.ImportSpecifier,
  ts.SyntaxKind.ImportClause,
])

/** Every name src/ declares: what a page may call a function, type, method, property or variable of ours. */
function declaredNames(files: readonly string[]): Set<string> {
  const names = new Set<string>()
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false)
    const visit = (node: ts.Node): void => {
      const name = DECLARES.has(node.kind) ? (node as { name?: ts.Node }).name : undefined
      if (name && (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name))) names.add(name.text.replace(/^#/, ''))
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
  return names
}

/** The inline code spans of `markdown` outside fenced blocks, with their line. */
function codeSpans(markdown: string): Array<{ line: number; code: string }> {
  const out: Array<{ line: number; code: string }> = []
  let fenced = false
  markdown.split('\n').forEach((raw, i) => {
    if (/^ *(`{3,}|~{3,})/.test(raw)) fenced = !fenced
    if (fenced) return
    for (const m of raw.matchAll(/`([^`]+)`/g)) out.push({ line: i + 1, code: m[1] })
  })
  return out
}

const page = readFileSync(join(ROOT, PAGE), 'utf8')
const srcFiles = sourceFiles(join(ROOT, 'src')).map((f) => relative(ROOT, f).split('\\').join('/'))
const declared = declaredNames(srcFiles.map((f) => join(ROOT, f)))

describe(PAGE, () => {
  test('every src/ and test/ path it names exists', () => {
    // fenced blocks count too: the diagram and the measured path lists name files.
    const paths = [...page.matchAll(/\b((?:src|test)\/[\w./<>*-]*[\w/>*])/g)].map((m) => m[1])
    expect(paths.length).toBeGreaterThan(40)
    // `src/providers/<family>` names a folder of folders: its fixed prefix must exist.
    const missing = [...new Set(paths)].filter((p) => !existsSync(join(ROOT, p.replace(/\/?<[^>]*>.*$/, ''))))
    expect(missing).toEqual([])
  })

  test('every file name in backticks is a file under src/', () => {
    const names = codeSpans(page).filter((s) => /^[\w-]+(\/[\w-]+)*\.ts$/.test(s.code) && !/^(src|test)\//.test(s.code))
    expect(names.length).toBeGreaterThan(10)
    const missing = names.filter((s) => !srcFiles.some((f) => f.endsWith(`/${s.code}`))).map((s) => `${PAGE}:${s.line}: ${s.code}`)
    expect(missing).toEqual([])
  })

  test('every identifier in backticks is declared in src/', () => {
    // `Run.handle`, `arrive()`, `acquireInterception(router)`, `s.whatIf()…run`, `offTape('live')`: each segment of
    // the identifier chain before a call or the end, minus the page's own sample variables (`s`, `lab`).
    const chains = codeSpans(page).flatMap((s) => {
      const m = /^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(\(.*\)|….*)?$/.exec(s.code)
      if (!m || /\.(ts|js|cjs|mjs|json|jsonl|md|yaml|snap)$/.test(m[1])) return []
      return [{ ...s, chain: m[1], called: m[2]?.startsWith('(') ?? false }]
    })
    expect(chains.filter((c) => c.called).length).toBeGreaterThan(15)
    const unknown = chains
      // a runtime global's members are the runtime's (`Symbol.for`, `globalThis.fetch`).
      .flatMap((c) => (c.chain.split('.')[0] in globalThis ? [] : c.chain.split('.').map((name) => ({ ...c, name }))))
      .filter(({ name }) => !/^[A-Z0-9_]+$/.test(name) && !declared.has(name) && !FOREIGN.has(name))
      .map((c) => `${PAGE}:${c.line}: \`${c.code}\` (${c.name})`)
    expect(unknown).toEqual([])
    // the list of foreign names stays short and true: each is on the page and not a name of ours.
    const named = new Set(chains.flatMap((c) => c.chain.split('.')))
    expect([...FOREIGN.keys()].filter((n) => !named.has(n) || declared.has(n))).toEqual([])
  })
})
