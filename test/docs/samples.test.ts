// Every code sample in README.md and docs/**/*.md compiles (STYLE "Docs"): each ```ts / ```typescript / ```js
// block is type-checked as its own module against the src/ entry files, ```json blocks must parse, and every
// relative markdown link must point at a file (and heading) that exists.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, test } from 'vitest'

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)))
/** Where the blocks live for the compiler: virtual files, never written to disk. */
const SAMPLES = join(ROOT, 'test', 'docs', '__samples__')

// @note the floors catch an extractor that silently finds nothing; raise them when the docs grow.
const MIN_COMPILED = 40
const MIN_JSON = 2
const MIN_README_COMPILED = 3

interface Block {
  page: string
  /** 1-based line in the page of the block's first content line. */
  line: number
  lang: string
  code: string
}

function markdownFiles(): string[] {
  const out = [join(ROOT, 'README.md')]
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name)
      if (statSync(p).isDirectory()) walk(p)
      else if (name.endsWith('.md')) out.push(p)
    }
  }
  walk(join(ROOT, 'docs'))
  return out
}

/** Fenced blocks (``` or ~~~, any indent) with their info string's first word as the language. */
function extractBlocks(file: string): Block[] {
  const page = relative(ROOT, file)
  const lines = readFileSync(file, 'utf8').split('\n')
  const blocks: Block[] = []
  let open: { fence: string; indent: number; lang: string; line: number; body: string[] } | undefined
  lines.forEach((raw, i) => {
    if (!open) {
      const m = /^( *)(`{3,}|~{3,})\s*([^\s`]*)/.exec(raw)
      if (m) open = { indent: m[1].length, fence: m[2], lang: m[3].toLowerCase(), line: i + 2, body: [] }
      return
    }
    const close = new RegExp(`^ *${open.fence[0]}{${open.fence.length},}\\s*$`)
    if (close.test(raw)) {
      blocks.push({ page, line: open.line, lang: open.lang, code: open.body.join('\n') })
      open = undefined
      return
    }
    open.body.push(raw.slice(Math.min(open.indent, raw.length - raw.trimStart().length)))
  })
  if (open) throw new Error(`${page}:${open.line - 1}: a code fence is never closed`)
  return blocks
}

const pages = markdownFiles()
const blocks = pages.flatMap(extractBlocks)
const COMPILED = new Set(['ts', 'typescript', 'js'])
const compiled = blocks.filter((b) => COMPILED.has(b.lang))

/**
 * The shared ambient prelude: the user's own code that fragments call but the docs do not define.
 * Kept small; a sample that can be complete imports what it uses instead.
 */
const PRELUDE = `
import type { Lab } from 'fluxlab'
declare global {
  /** The agent under test: a prompt in, the final answer out. */
  function myAgent(prompt: string): Promise<string>
  /** An agent that takes the lab and uses its tools. */
  function runAgent(task: string, options?: { tools?: Record<string, unknown> }): Promise<string>
  /** An agent as what-if, check, sweep and durable() drive it: given the lab. */
  function agent(lab: Lab): Promise<string>
  /** The task a durable run is given. */
  const task: string
  /** The agent's in-process tools, keyed by name. */
  const tools: Record<string, (args: any) => Promise<unknown>>
}
export {}
`

/** Modules that samples import by relative path, as a user's project would have them. */
const SUPPORT: Record<string, string> = {
  'agent.ts': `export declare function myAgent(prompt: string): Promise<string>\nexport declare function supportAgent(prompt: string): Promise<string>\n`,
  'tools.ts': `export declare function get_weather(args: { city: string }): Promise<string>\nexport declare const VERSION: string\n`,
  'fluxlab.config.mjs': `/** @type {import('fluxlab').FluxOptions} */\nexport default { dir: 'tests/scenarios' }\n`,
}

function fileNameOf(b: Block): string {
  const slug = b.page.replace(/[^A-Za-z0-9]+/g, '_')
  const ext = b.lang === 'js' ? (/\brequire\(|\bmodule\.exports\b/.test(b.code) ? 'cjs' : 'mjs') : 'ts'
  return join(SAMPLES, `${slug}_L${b.line}.${ext}`)
}

const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.Preserve,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  moduleDetection: ts.ModuleDetectionKind.Force,
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
  types: ['node'],
  strict: true,
  allowJs: true,
  checkJs: true,
  noEmit: true,
  skipLibCheck: true,
  esModuleInterop: true,
  resolveJsonModule: true,
  baseUrl: ROOT,
  paths: {
    fluxlab: ['src/index.ts'],
    'fluxlab/vitest': ['src/vitest.ts'],
    'fluxlab/jest': ['src/jest.ts'],
    'fluxlab/matchers': ['src/matchers/index.ts'],
    'fluxlab/playwright': ['src/playwright.ts'],
  },
}

/** One Program for every block; diagnostics per block, mapped back to `page:line`. */
function typeCheck(): { checked: number; failures: string[]; global: string[] } {
  const virtual = new Map<string, string>()
  const byFile = new Map<string, Block>()
  for (const b of compiled) {
    const f = fileNameOf(b)
    virtual.set(f, b.code)
    byFile.set(f, b)
  }
  virtual.set(join(SAMPLES, 'prelude.d.ts'), PRELUDE)
  for (const [name, text] of Object.entries(SUPPORT)) virtual.set(join(SAMPLES, name), text)

  const host = ts.createCompilerHost(OPTIONS, true)
  const { getSourceFile, fileExists, readFile, directoryExists } = host
  host.fileExists = (f) => virtual.has(resolve(f)) || fileExists.call(host, f)
  host.directoryExists = (d) => resolve(d) === SAMPLES || (directoryExists?.call(host, d) ?? true)
  host.readFile = (f) => virtual.get(resolve(f)) ?? readFile.call(host, f)
  host.getSourceFile = (f, lang, onError, create) => {
    const text = virtual.get(resolve(f))
    return text !== undefined ? ts.createSourceFile(f, text, lang, true) : getSourceFile.call(host, f, lang, onError, create)
  }
  // The matcher augmentations that dist/vitest.d.ts and dist/jest.d.ts reference once built.
  const roots = [...byFile.keys(), join(SAMPLES, 'prelude.d.ts'), join(ROOT, 'types', 'vitest.d.ts'), join(ROOT, 'types', 'jest.d.ts')]
  const program = ts.createProgram({ rootNames: roots, options: OPTIONS, host })
  const fmt = (d: ts.Diagnostic) => ts.flattenDiagnosticMessageText(d.messageText, '\n')
  const global = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()].map(fmt)

  const failures: string[] = []
  for (const [file, b] of byFile) {
    const sf = program.getSourceFile(file)
    if (!sf) {
      failures.push(`${b.page}:${b.line}: the block was not compiled`)
      continue
    }
    for (const d of [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]) {
      const at = d.start === undefined ? 0 : sf.getLineAndCharacterOfPosition(d.start).line
      failures.push(`${b.page}:${b.line + at}: TS${d.code} ${fmt(d)}`)
    }
  }
  return { checked: byFile.size, failures, global }
}

/** GitHub's heading anchors: lowercased, punctuation dropped, spaces to dashes, repeats numbered. */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  let inFence = false
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^ *(`{3,}|~{3,})/.test(line)) inFence = !inFence
    const m = !inFence && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!m) continue
    const base = m[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-')
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    out.add(n ? `${base}-${n}` : base)
  }
  return out
}

function brokenLinks(): { checked: number; broken: string[] } {
  const broken: string[] = []
  let checked = 0
  for (const file of pages) {
    const page = relative(ROOT, file)
    let inFence = false
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((raw, i) => {
        if (/^ *(`{3,}|~{3,})/.test(raw)) inFence = !inFence
        if (inFence) return
        const line = raw.replace(/`[^`]*`/g, '')
        for (const m of line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
          const target = m[1]
          if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue
          checked++
          const [path, anchor] = target.split('#') as [string, string | undefined]
          const dest = path ? resolve(dirname(file), decodeURIComponent(path)) : file
          if (!existsSync(dest)) {
            broken.push(`${page}:${i + 1}: ${target} (no such file)`)
            continue
          }
          if (anchor && dest.endsWith('.md') && !anchorsOf(dest).has(anchor.toLowerCase()))
            broken.push(`${page}:${i + 1}: ${target} (no heading #${anchor} in ${relative(ROOT, dest)})`)
        }
      })
  }
  return { checked, broken }
}

describe('docs code samples', () => {
  test('finds the blocks to check', () => {
    expect(pages.length).toBeGreaterThanOrEqual(10)
    expect(compiled.length).toBeGreaterThanOrEqual(MIN_COMPILED)
    expect(compiled.filter((b) => b.page === 'README.md').length).toBeGreaterThanOrEqual(MIN_README_COMPILED)
    expect(blocks.filter((b) => b.lang === 'json').length).toBeGreaterThanOrEqual(MIN_JSON)
  })

  test('every ts and js block type-checks against src/', { timeout: 120_000 }, () => {
    const { checked, failures, global } = typeCheck()
    expect(global, 'compiler options or global declarations').toEqual([])
    expect(checked).toBe(compiled.length)
    if (failures.length) throw new Error(`${failures.length} diagnostic(s) in docs code samples:\n${failures.join('\n')}`)
  })

  test('every json block parses', () => {
    const bad = blocks
      .filter((b) => b.lang === 'json')
      .flatMap((b) => {
        try {
          JSON.parse(b.code)
          return []
        } catch (e) {
          return [`${b.page}:${b.line}: ${(e as Error).message}`]
        }
      })
    expect(bad).toEqual([])
  })

  test('every block names its language', () => {
    expect(blocks.filter((b) => b.lang === '').map((b) => `${b.page}:${b.line}`)).toEqual([])
  })

  test('every relative link points at a file and heading that exist', () => {
    const { checked, broken } = brokenLinks()
    expect(checked).toBeGreaterThanOrEqual(20)
    expect(broken).toEqual([])
  })
})
