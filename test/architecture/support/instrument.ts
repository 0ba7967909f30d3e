/**
 * The tracer's source transform: a copy of `src/` in which every function body (declarations, expressions, arrows,
 * methods, accessors, constructors) reports to `globalThis.__fluxTrace` when control enters it, leaves it for good,
 * and, in async functions and generators, when it suspends at an `await`/`yield` and when it resumes.
 *
 * The edits are text insertions at positions the TypeScript parser finds, so everything else in a file stays byte for
 * byte as it was (types included: vitest strips them as it does for `src/`), and the copy is loaded by the same runner
 * the examples use. Nothing here knows a name inside `src/`: every function of every non-test file is treated alike.
 *
 * Per function (frame variable `__ftN`, one per function, so a closure sees the frame of the call that created it):
 *
 *   { const __ftN = __fluxTrace.enter(FILE, __ftParent, [params]); try { BODY } finally { __fluxTrace.exit(__ftN) } }
 *
 * - `__ftParent` is the frame variable of the lexically enclosing function (`undefined` at module level): the call that
 *   created the closure, which is how the runtime ties a callback a library calls later (a stream's `pull`, a wrapped
 *   `controller.passthrough`) to the request whose code created it.
 * - `[params]` (the names the parameter list binds) is passed only in files under the start folder (`src/sources/`):
 *   the runtime looks there for the intercepted `Request` that opens a window.
 * - `await X` becomes `__fluxTrace.resume(__ftN, await __fluxTrace.suspend(__ftN, X))` (one `await` on the same value,
 *   so no microtask is added or removed), `yield X` likewise with `__fluxTrace.yield`; the first statement of each `catch`/`finally` block of an
 *   async function or generator is `__fluxTrace.here(__ftN)`, which resumes the frame when a rejected `await` landed there.
 * - An arrow with an expression body gets a block body returning the expression.
 * - In a derived class's constructor the frame starts after a leading `super(…)` statement (code before `super` may not
 *   run in a `try` the transpiler has to put parameter properties after); one without a leading `super` is not traced.
 *
 * Not seen (documented limits): parameter default expressions (they run before the body: a call there counts as the
 * caller's), the implicit awaits of `for await` (the frame looks active while it waits; only src/sources/undici-wire.ts
 * has one, off the fetch path), and module top-level code (no function).
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import ts from 'typescript'

/** What `instrumentTree` wrote. */
export interface InstrumentedTree {
  /** The copy of the source root (`<out>/src`). */
  dir: string
  files: number
  functions: number
  ms: number
}

interface Edit {
  pos: number
  text: string
  /**
   * At one position openings go first (an empty body `{}` opens and closes there), the outer node's first; then closings,
   * the inner node's first. (A node cannot end where another node's edit opens without a token between them.)
   */
  closing: boolean
  depth: number
}

/**
 * The prelude every instrumented file starts with: the tracer if one is installed, else a pass-through (the runner's config
 * loader bundles `src/vitest.ts` before any setup file has run).
 */
const PRELUDE =
  'const __fluxTrace: any = (globalThis as any).__fluxTrace ?? { enter() {}, exit() {}, here() {}, suspend: (_f: unknown, v: unknown) => v, yield: (_f: unknown, v: unknown) => v, resume: (_f: unknown, v: unknown) => v };\n'

/** Whether a source file is code to trace (not a unit test, not a declaration file). */
export const isTracedSource = (file: string): boolean => file.endsWith('.ts') && !file.endsWith('.d.ts') && !file.endsWith('.test.ts')

/**
 * Copy `srcDir` to `<outDir>/src` with every traced source instrumented; other files are copied as they are.
 * `fileId(rel)` names a file in the events (default `src/<rel>`); `startFolder` is where parameters are passed along.
 * @example
 * const tree = instrumentTree(join(REPO, 'src'), tmp, { startFolder: 'src/sources/' })
 */
export function instrumentTree(srcDir: string, outDir: string, opts: { startFolder: string; prefix?: string }): InstrumentedTree {
  const started = performance.now()
  const prefix = opts.prefix ?? 'src/'
  const dir = join(outDir, 'src')
  let files = 0
  let functions = 0
  const walk = (from: string): void => {
    for (const name of readdirSync(from).sort()) {
      const full = join(from, name)
      const rel = relative(srcDir, full).split(sep).join('/')
      const to = join(dir, rel)
      if (statSync(full).isDirectory()) {
        mkdirSync(to, { recursive: true })
        walk(full)
        continue
      }
      if (!isTracedSource(name)) {
        if (!name.endsWith('.test.ts')) copyFileSync(full, to)
        continue
      }
      const id = `${prefix}${rel}`
      const out = instrumentSource(readFileSync(full, 'utf8'), id, { passParams: id.startsWith(opts.startFolder) })
      writeFileSync(to, out.text)
      files++
      functions += out.functions
    }
  }
  mkdirSync(dir, { recursive: true })
  walk(srcDir)
  return { dir, files, functions, ms: Math.round(performance.now() - started) }
}

type FunctionNode =
  | ts.FunctionDeclaration
  | ts.FunctionExpression
  | ts.ArrowFunction
  | ts.MethodDeclaration
  | ts.GetAccessorDeclaration
  | ts.SetAccessorDeclaration
  | ts.ConstructorDeclaration

function isFunctionNode(n: ts.Node): n is FunctionNode {
  return (
    ts.isFunctionDeclaration(n) ||
    ts.isFunctionExpression(n) ||
    ts.isArrowFunction(n) ||
    ts.isMethodDeclaration(n) ||
    ts.isGetAccessorDeclaration(n) ||
    ts.isSetAccessorDeclaration(n) ||
    ts.isConstructorDeclaration(n)
  )
}

/** The identifiers a parameter list binds (`({ request, controller }, via)` → `request, controller, via`). */
function boundNames(params: readonly ts.ParameterDeclaration[]): string[] {
  const out: string[] = []
  const visit = (name: ts.BindingName): void => {
    if (ts.isIdentifier(name)) {
      if (name.text !== 'this') out.push(name.text)
      return
    }
    for (const el of name.elements) if (!ts.isOmittedExpression(el)) visit(el.name)
  }
  for (const p of params) visit(p.name)
  return out
}

/**
 * Instrument one file's text (see the module comment). `id` is the file's name in the events.
 * @example
 * instrumentSource('export const f = () => 1\n', 'src/f.ts', { passParams: false }).text
 */
export function instrumentSource(text: string, id: string, opts: { passParams: boolean }): { text: string; functions: number } {
  const sf = ts.createSourceFile(id, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const edits: Edit[] = []
  const FILE = JSON.stringify(id)
  let count = 0

  /** `frame` is the enclosing instrumented function's frame variable; `suspends` whether that function is async or a generator. */
  const visit = (node: ts.Node, depth: number, frame: string | undefined, suspends: boolean): void => {
    if (isFunctionNode(node) && node.body) {
      const own = instrument(node, depth, frame)
      const isAsync = !!node.modifiers?.some((m) => m.kind === ts.SyntaxKind.AsyncKeyword)
      const isGenerator = 'asteriskToken' in node && !!node.asteriskToken
      // The parameter list runs before the body (and cannot see the body's frame variable): it belongs to the outer function.
      node.forEachChild((c) =>
        c === node.body ? visit(c, depth + 1, own ?? frame, own ? isAsync || isGenerator : suspends) : visit(c, depth + 1, frame, suspends),
      )
      return
    }
    if (frame && suspends && (ts.isAwaitExpression(node) || ts.isYieldExpression(node))) {
      const start = node.getStart(sf)
      edits.push({ pos: start, text: `__fluxTrace.resume(${frame}, `, closing: false, depth })
      const pause = ts.isAwaitExpression(node) ? 'suspend' : 'yield'
      if (node.expression) {
        edits.push({ pos: node.expression.getStart(sf), text: `__fluxTrace.${pause}(${frame}, `, closing: false, depth: depth + 1 })
        edits.push({ pos: node.end, text: '))', closing: true, depth })
      } else {
        // `yield` alone: yield undefined, the same value, through the marker
        edits.push({ pos: node.end, text: ` __fluxTrace.yield(${frame}, undefined))`, closing: true, depth })
      }
    }
    if (frame && suspends && ts.isTryStatement(node)) {
      if (node.catchClause) edits.push({ pos: node.catchClause.block.getStart(sf) + 1, text: ` __fluxTrace.here(${frame});`, closing: false, depth: depth + 1 })
      if (node.finallyBlock) edits.push({ pos: node.finallyBlock.getStart(sf) + 1, text: ` __fluxTrace.here(${frame});`, closing: false, depth: depth + 1 })
    }
    node.forEachChild((c) => visit(c, depth + 1, frame, suspends))
  }

  /** Edits for one function; returns its frame variable, or undefined when it is left alone. */
  const instrument = (fn: FunctionNode, depth: number, parent: string | undefined): string | undefined => {
    const body = fn.body!
    const frame = `__ft${count}`
    const args = opts.passParams ? `[${boundNames(fn.parameters).join(', ')}]` : 'undefined'
    const enter = `const ${frame} = __fluxTrace.enter(${FILE}, ${parent ?? 'undefined'}, ${args}); try {`
    const exit = `} finally { __fluxTrace.exit(${frame}) }`
    if (ts.isBlock(body)) {
      let open = body.getStart(sf) + 1
      if (
        ts.isConstructorDeclaration(fn) &&
        fn.parent &&
        ts.isClassLike(fn.parent) &&
        fn.parent.heritageClauses?.some((h) => h.token === ts.SyntaxKind.ExtendsKeyword)
      ) {
        const first = body.statements[0]
        const isSuper =
          first && ts.isExpressionStatement(first) && ts.isCallExpression(first.expression) && first.expression.expression.kind === ts.SyntaxKind.SuperKeyword
        if (!isSuper) return undefined
        open = first.end
      }
      // after `super(…)` a `;` ends that statement when it had none (ASI needs a line break, which may not be there)
      edits.push({ pos: open, text: open === body.getStart(sf) + 1 ? ` ${enter}` : `; ${enter}`, closing: false, depth })
      edits.push({ pos: body.end - 1, text: `${exit} `, closing: true, depth })
    } else {
      edits.push({ pos: body.getStart(sf), text: `{ ${enter} return (`, closing: false, depth })
      edits.push({ pos: body.end, text: `); ${exit} }`, closing: true, depth })
    }
    count++
    return frame
  }

  sf.forEachChild((c) => visit(c, 1, undefined, false))
  edits.sort((a, b) => a.pos - b.pos || (a.closing === b.closing ? (a.closing ? b.depth - a.depth : a.depth - b.depth) : a.closing ? 1 : -1))
  let out = ''
  let at = 0
  for (const e of edits) {
    out += text.slice(at, e.pos) + e.text
    at = e.pos
  }
  out += text.slice(at)
  // ESM hoists the imports: the prelude may come first, after a shebang.
  const shebang = /^#!.*\n/.exec(out)?.[0] ?? ''
  return { text: shebang + PRELUDE + out.slice(shebang.length), functions: count }
}
