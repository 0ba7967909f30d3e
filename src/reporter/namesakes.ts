/**
 * SPEC §2 "Identity", as the run summary tells it. Tests of one file that share a full name (two \`test('raw response')\`, a \`test.each\` title with a
 * literal \`%name\`) are each their own scenario, told apart by order of declaration; the run summary names each such
 * name once. A static read one test of a file recorded may answer the same read in another (a download the app
 * caches across tests, met again when a test runs alone): the summary lists those.
 */
/** A test as the summary has it: its facts say whether it has a fixture (a recording written, or a replay). */
interface Namesake {
  file: string
  name: string
  project?: string
  repeat?: number
  facts?: { sessions: ReadonlyArray<{ mode: string; written?: boolean; refused?: true }> }
}
const onTape = (s: { mode: string; written?: boolean; refused?: true }) => s.written === true || (s.mode === 'replay' && !s.refused)

/**
 * The full names that two or more tests of one file share, one of them at least with a fixture, with how many (a project's run
 * of a file counts apart).
 * @example
 * namesakes(tests) // [{ file: '/repo/test/raw.test.ts', name: 'raw response', count: 2 }]
 */
export function namesakes(tests: ReadonlyArray<Namesake>): Array<{ file: string; name: string; count: number }> {
  const counts = new Map<string, { file: string; name: string; count: number; taped: boolean }>()
  for (const t of tests) {
    if (t.repeat) continue
    const key = `${t.file}\0${t.name}\0${t.project ?? ''}`
    const taped = t.facts?.sessions.some(onTape) === true
    const seen = counts.get(key)
    if (!seen) counts.set(key, { file: t.file, name: t.name, count: 1, taped })
    else {
      seen.count++
      seen.taped ||= taped
    }
  }
  // @note a name none of whose tests has a fixture has no scenarios to tell apart (langgraph-core, in the field corpus:
  // 170 names shared by tests that call no model filled every run's summary)
  return [...counts.values()].filter((d) => d.count > 1 && d.taped).map(({ file, name, count }) => ({ file, name, count }))
}

/**
 * The summary's lines for them: each name once, at most 10.
 * @example
 * namesakeLines(namesakes(tests), (p) => relative(cwd, p), '          ')
 */
export function namesakeLines(names: ReturnType<typeof namesakes>, rel: (file: string) => string, pad: string): string[] {
  const lines = names
    .slice(0, 10)
    .map(
      (d) =>
        `${pad}· ${d.count} tests of ${rel(d.file)} are named "${d.name}": each has its own scenario, told apart by order of declaration` +
        ' (names of their own keep each fixture with its test when they move)',
    )
  if (names.length > 10) lines.push(`${pad}  … ${names.length - 10} more names shared by tests of one file`)
  return lines
}

/**
 * The summary's lines for reads answered from another test's fixture: each, at most 5.
 * @example
 * sharedLines([{ scenario: 'a--two-1b2c3d', step: 'tool#1 GET cdn.example.com/table', from: 'a--one-9f8e7d' }], '  ')
 */
export function sharedLines(shared: ReadonlyArray<{ scenario: string; step: string; from: string }>, pad: string): string[] {
  if (!shared.length) return []
  const lines = [
    `${pad}· ${shared.length} read${shared.length === 1 ? '' : 's'} answered from another test's fixture of the same file (a download the app keeps across ` +
      `tests):`,
  ]
  for (const r of shared.slice(0, 5)) lines.push(`${pad}  ${r.scenario} ${r.step} ← ${r.from}`)
  if (shared.length > 5) lines.push(`${pad}  … ${shared.length - 5} more`)
  return lines
}
