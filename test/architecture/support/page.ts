/**
 * The page side of the path check: which requests of an example to watch (read from its fixture), and the message
 * when a ```path <name>``` block of docs/architecture.md is not the traced path.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { diffPaths, pathBlock } from './path.js'
import type { Target } from './tracer.js'

/**
 * The first recorded model call and the first recorded HTTP tool call of a scenario, as tracer targets: the model call by
 * method and path (a replay sends it to the provider's host, whatever host it was recorded from), the tool call by its URL.
 * @example
 * const targets = targetsFromFixture(join(REPO, 'examples/scenarios/capital-agent'))
 */
export function targetsFromFixture(dir: string): Target[] {
  const cells = (file: string) =>
    readFileSync(join(dir, file), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
  const model = cells('model.jsonl')[0] as { request: { method: string; path: string } } | undefined
  const tool = cells('tools.jsonl').find((c) => c.kind === 'http') as { name: string; url: string } | undefined
  if (!model) throw new Error(`${dir}/model.jsonl has no recorded model call to trace`)
  const out: Target[] = [{ name: 'model', method: model.request.method, path: model.request.path.split('?')[0] }]
  // the HTTP cell's name is `METHOD host/path`
  if (tool) out.push({ name: 'tool', method: tool.name.split(' ')[0], url: tool.url })
  return out
}

/**
 * Why the page's block differs from the traced files, with the fix; `undefined` when they are the same.
 * `repo` is where to look for a listed file that does not exist (a rename the page missed).
 * @example
 * const problem = pageMismatch({ name: 'model', request, page: blocks.model, traced: path.files, repo: REPO })
 */
export function pageMismatch(opts: {
  name: string
  request: string
  page: readonly string[] | undefined
  traced: readonly string[]
  repo: string
}): string | undefined {
  const { name, request, page, traced, repo } = opts
  const where = `docs/architecture.md, "## The path of a replayed call"`
  if (!page) return `${where} has no \`\`\`path ${name}\`\`\` block. Add the traced path of the ${name} call (${request}):\n\n${pathBlock(name, traced)}`
  const diff = diffPaths(page, traced)
  if (!diff) return undefined
  const gone = [...new Set(page.filter((f) => !existsSync(join(repo, f))))]
  return [
    `${where}: the \`\`\`path ${name}\`\`\` block is not the path a replayed ${name} call takes (${request}).`,
    `  - only on the page, + only in the trace (line numbers are the trace's for + and kept lines, the page's for -):`,
    '',
    compact(diff),
    '',
    ...gone.map((f) => `  • ${f} is not a file in the repository: renamed or removed?`),
    ...(gone.length ? [''] : []),
    `If the code is right, replace the block with the traced path (printed in full above); else fix the code.`,
  ].join('\n')
}

/** A diff with long runs of kept lines shortened to their ends. */
function compact(diff: string): string {
  const lines = diff.split('\n')
  const keep = lines.map((l, i) => !l.startsWith('  ') || lines.slice(Math.max(0, i - 2), i + 3).some((n) => !n.startsWith('  ')))
  const out: string[] = []
  for (let i = 0; i < lines.length; i++) {
    if (keep[i]) out.push(lines[i])
    else if (keep[i - 1] !== false) {
      let n = 0
      while (i + n < lines.length && !keep[i + n]) n++
      out.push(`  … ${n} the same`)
    }
  }
  return out.join('\n')
}
