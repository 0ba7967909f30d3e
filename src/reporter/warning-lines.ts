/** The run summary's warning lines: each said once, folded where one place warns in many scenarios. */
import type pc from 'picocolors'

/** One warning of one scenario, as the summary lists it. */
interface Warned {
  scenario: string
  step: string
  code: string
  message: string
}

const SERVED = 'request differs from the recording, served by position: '

/**
 * The drift warnings, each said once: warnings of one code at one place (a prompt field that
 * holds today's date drifts in every test) fold into one line with their count, and each line
 * shows what changed, not the words every drift message shares.
 * @example
 * lines.push(...driftLines(summary.drift, pc.createColors(false), '          '))
 */
export function driftLines(drift: ReadonlyArray<Warned>, c: ReturnType<typeof pc.createColors>, pad: string, width = 200): string[] {
  const groups = new Map<string, Warned[]>()
  for (const d of drift) {
    const what = d.message.startsWith(SERVED) ? d.message.slice(SERVED.length) : d.message
    // a drift at one place; an unwrapped tool by its name (each call has its own step and id)
    const where = /^(\S+) (?:differs|added|removed)/.exec(what)?.[1] ?? /^\S+ asked for `([^`]+)`/.exec(what)?.[1] ?? what
    const key = `${d.code}\0${where}`
    const group = groups.get(key) ?? []
    if (group.length === 0) groups.set(key, group)
    group.push({ ...d, message: what })
  }
  const lines: string[] = []
  const shown = [...groups.values()].slice(0, 5)
  for (const g of shown) {
    if (g.length <= 2) {
      for (const d of g) lines.push(`${pad}${c.yellow('⚠')} ${d.scenario} ${d.step} ${d.code}: ${clip(d.message, width)}`)
      continue
    }
    const scenarios = new Set(g.map((d) => d.scenario)).size
    const first = g[0]
    lines.push(
      `${pad}${c.yellow('⚠')} ${g.length}× ${first.code} in ${scenarios} scenario${scenarios === 1 ? '' : 's'}, first ${first.scenario} ${first.step}: ` +
        `${clip(first.message, width)}`,
    )
  }
  const rest = [...groups.values()].slice(5).reduce((n, g) => n + g.length, 0)
  if (rest > 0) lines.push(`${pad}  … ${rest} more`)
  if (drift.some((d) => d.code === 'model_request_drift')) {
    lines.push(
      `${pad}  a prompt part that changes every run (a date, a temp path, an id) drifts on every replay: key it with a \`normalize\` rule (built-ins for ` +
        `dates, uuids, temp paths, model date suffixes, or a pattern), or leave its field out of the key with \`ignore\` (docs/matching-and-divergence.md)`,
    )
  }
  return lines
}

/** The fix a drift message ends with when built-in normalize rules would absorb it (src/cassette/normalize.ts `absorbHint`). */
const HINT = /; the normalize rules? '.*$/s

/**
 * `s` cut to `n` characters; a fix it ends with is kept whole and what comes before it is cut instead (the summary
 * used to end `fluxlab({ normalize: ['is…`, the one line that said what to write).
 * @example
 * clip(`body.messages[1].content differs: "…" → "…"; the normalize rule 'iso-dates' would absorb …`, 200)
 */
function clip(s: string, n: number): string {
  if (s.length <= n) return s
  const hint = HINT.exec(s)
  const keep = hint?.[0] ?? ''
  const head = hint ? s.slice(0, hint.index) : s
  const room = Math.max(n - keep.length, 40)
  return `${head.length > room ? `${head.slice(0, room - 1)}…` : head}${keep}`
}
