import type { Fixture } from '../../cassette/cell.js'
import { readFixture } from '../../cassette/fixture.js'
import { diffJson, renderDiff } from '../../cassette/json-diff.js'
import { fixtureSteps, type TraceStep } from '../../golden/trace.js'
import { parse } from '../args.js'
import { fixtureRoot, loadConfig } from '../config.js'
import { EXIT, usage } from '../errors.js'
import { display, requireFixture } from '../fixtures.js'
import type { Output } from '../output.js'
import { clip, runView, traceBlocks } from '../steps.js'

/**
 * `fluxlab diff <a> <b>`: the two fixtures' traces aligned step by step; at the first step that
 * differs, the JSON-path diff of the requests and of the responses.
 * @example
 * await diffCommand(['triage', 'triage/forks/inject-3'], out) // 1: they differ
 */
export async function diffCommand(argv: string[], out: Output): Promise<number> {
  const { values, positionals } = parse('diff', argv, { dir: { type: 'string' }, config: { type: 'string' } })
  if (positionals.length !== 2) throw usage('diff', `diff takes two scenarios, got ${positionals.length}`)
  const { options } = await loadConfig(values.config)
  const root = fixtureRoot(values.dir, options)
  const [dirA, dirB] = positionals.map((p) => requireFixture(p, root))
  const fxA = readFixture(dirA, { disable: options.redact?.disable })
  const fxB = readFixture(dirB, { disable: options.redact?.disable })
  const a = runView(fxA)
  const b = runView(fxB)
  const { c } = out
  const blocksA = traceBlocks(a.trace)
  const blocksB = traceBlocks(b.trace)
  out.line(c.red(`--- a ${display(dirA)} (${blocksA.length} steps)`))
  out.line(c.green(`+++ b ${display(dirB)} (${blocksB.length} steps)`))

  const differing: number[] = []
  for (let i = 0; i < Math.max(blocksA.length, blocksB.length); i++) {
    const x = blocksA[i]?.replace(/^\d+ /, '')
    const y = blocksB[i]?.replace(/^\d+ /, '')
    const n = i + 1
    if (x === y) {
      out.line(c.dim(`  = ${n} ${x!.split('\n')[0]}`))
      continue
    }
    differing.push(n)
    out.line(c.yellow(`  ≠ ${n}`))
    if (x !== undefined) for (const l of x.split('\n')) out.line(c.red(`    - ${l.trim()}`))
    else out.line(c.red('    - (no such step in a)'))
    if (y !== undefined) for (const l of y.split('\n')) out.line(c.green(`    + ${l.trim()}`))
    else out.line(c.green('    + (no such step in b)'))
  }
  const sameFinal = a.finalText === b.finalText
  if (!sameFinal) {
    out.line(c.red(`  - final ${clip(JSON.stringify(a.finalText))}`))
    out.line(c.green(`  + final ${clip(JSON.stringify(b.finalText))}`))
  }
  out.line()
  if (differing.length === 0 && sameFinal) {
    out.line(c.green(`same trace: ${blocksA.length} steps`))
    return EXIT.ok
  }
  if (differing.length) {
    const first = differing[0]
    out.line(c.bold(`first divergence at step ${first}${differing.length > 1 ? ` (${differing.length} steps differ)` : ''}:`))
    for (const l of firstDivergence(fxA, fxB, first)) out.line(`  • ${l}`)
  } else out.line(c.bold('every step is the same; the final text differs'))
  return EXIT.failed
}

/** JSON-path rows of one value, or one line when a side has none. */
function valueDiff(label: string, a: unknown, b: unknown): string[] {
  if (a === undefined && b === undefined) return []
  if (a === undefined || b === undefined)
    return [`${label}: ${a === undefined ? '(none)' : clip(JSON.stringify(a), 70)} → ${b === undefined ? '(none)' : clip(JSON.stringify(b), 70)}`]
  return renderDiff(diffJson(a, b)).map((r) => `${label} ${r}`)
}

/** What differs at one step, as JSON-path rows (requests, then responses). */
function firstDivergence(fxA: Fixture, fxB: Fixture, n: number): string[] {
  const x: TraceStep | undefined = fixtureSteps(fxA)[n - 1]
  const y: TraceStep | undefined = fixtureSteps(fxB)[n - 1]
  if (!x || !y) return [`step ${n} exists only in ${x ? 'a' : 'b'}`]
  if (x.channel !== y.channel) return [`step ${n} is a ${x.channel} call in a and a ${y.channel} call in b`]
  const rows: string[] = []
  if (x.channel === 'model' && y.channel === 'model') {
    const req = renderDiff(diffJson(x.cell.request.body, y.cell.request.body))
    rows.push(...(req.length ? req.map((r) => `request ${r}`) : ['request: same canonical request']))
    if (x.cell.request.path !== y.cell.request.path) rows.push(`request path differs: ${x.cell.request.path} → ${y.cell.request.path}`)
    if (x.cell.model !== y.cell.model) rows.push(`model differs: ${x.cell.model} → ${y.cell.model}`)
    if (x.cell.text !== y.cell.text) rows.push(`response text differs: ${clip(JSON.stringify(x.cell.text), 70)} → ${clip(JSON.stringify(y.cell.text), 70)}`)
    rows.push(
      ...renderDiff(
        diffJson(
          x.cell.toolCalls.map(({ name, args }) => ({ name, args })),
          y.cell.toolCalls.map(({ name, args }) => ({ name, args })),
        ),
      ).map((r) => `tool calls ${r}`),
    )
    if (x.cell.response.status !== y.cell.response.status) rows.push(`response status differs: ${x.cell.response.status} → ${y.cell.response.status}`)
    return rows
  }
  if (x.channel === 'tool' && y.channel === 'tool') {
    if (x.cell.name !== y.cell.name) rows.push(`tool differs: ${x.cell.name} → ${y.cell.name}`)
    rows.push(...valueDiff('args', x.cell.args, y.cell.args))
    rows.push(...valueDiff('output', x.cell.output, y.cell.output))
    if (x.cell.error || y.cell.error) rows.push(`error: ${x.cell.error?.message ?? '(none)'} → ${y.cell.error?.message ?? '(none)'}`)
    if (x.cell.response?.status !== y.cell.response?.status) rows.push(`response status differs: ${x.cell.response?.status} → ${y.cell.response?.status}`)
  }
  return rows.length ? rows : ['the rendered steps differ (ids or formatting) but the cells hold the same request and result']
}
