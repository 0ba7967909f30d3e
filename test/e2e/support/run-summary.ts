/**
 * fluxlab's run summary line (SPEC §8), read back into numbers, in one place so the end-to-end tests
 * follow its format from here:
 *
 *   ` fluxlab  {S} scenarios: {R} replayed, {W} recorded · tests {P} passed, {F} failed (2 FLUX_NO_RECORDING), {K} skipped · hermetic … · live model calls 0 · …`
 *
 * Tolerant of what is not fixed yet: a singular "scenario", words after "recorded" ("(3 with no call
 * to record)"), refusals written `2 FLUX_NO_RECORDING` or `FLUX_NO_RECORDING ×2`, parts in another
 * order inside the `tests` segment, and a count the line leaves out (read as 0).
 */

export interface RunSummary {
  /** The whole line, for assertion messages. */
  line: string
  scenarios: number
  replayed: number
  recorded: number
  /** The `tests …` segment; `undefined` when the line has none. */
  tests?: {
    passed: number
    failed: number
    /** Playwright's: passed on a retry (present when the line has it). */
    flaky?: number
    /** Skipped and todo. */
    skipped: number
    /** fluxlab's own refusals among the failed, by code (`{ FLUX_NO_RECORDING: 2 }`). */
    refusals: Record<string, number>
  }
  liveModelCalls?: number
  driftWarnings?: number
}

const HEAD = / fluxlab {2}(\d+) scenarios?: (\d+) replayed, (\d+) recorded/

/**
 * The last fluxlab summary line in a runner's output, or `undefined` when there is none.
 * @example
 * parseRunSummary(r.output)?.tests // { passed: 9, failed: 1, skipped: 7, refusals: {} }
 */
export function parseRunSummary(output: string): RunSummary | undefined {
  const line = output
    .split('\n')
    .filter((l) => HEAD.test(l))
    .at(-1)
  if (!line) return undefined
  const [, s, r, w] = HEAD.exec(line)!
  const parts = line.split(' · ')
  const summary: RunSummary = { line, scenarios: Number(s), replayed: Number(r), recorded: Number(w) }
  const tests = parts.find((p) => /^tests\b/.test(p.trim()))
  if (tests) {
    const count = (word: string) => Number(new RegExp(`(\\d+) ${word}`).exec(tests.replace(/\([^)]*\)/g, ''))?.[1] ?? 0)
    const refusals: Record<string, number> = {}
    for (const group of tests.match(/\(([^)]*)\)/g) ?? [])
      for (const m of group.matchAll(/(\d+)\s*[×x]?\s*(FLUX_[A-Z_]+)|(FLUX_[A-Z_]+)\s*[×x:]?\s*(\d+)/g)) {
        const code = m[2] ?? m[3]
        refusals[code] = (refusals[code] ?? 0) + Number(m[1] ?? m[4])
      }
    // Playwright's `flaky` (passed on a retry) is its own count, shown when there is one
    summary.tests = {
      passed: count('passed'),
      ...(/\d+ flaky/.test(tests) ? { flaky: count('flaky') } : {}),
      failed: count('failed'),
      skipped: count('skipped') + count('todo'),
      refusals,
    }
  }
  const live = /live model calls (\d+)/.exec(line)
  if (live) summary.liveModelCalls = Number(live[1])
  const drift = /drift warnings (\d+)/.exec(line)
  if (drift) summary.driftWarnings = Number(drift[1])
  return summary
}
