/**
 * `judge.jsonl`: one verdict per line, keyed by the hash of the canonical judge
 * request, stable-sorted, secret-scanned on read and write, rewritten atomically.
 */
import { join, relative } from 'node:path'
import { stableJson } from '../cassette/stable-json.js'
import { writeFileAtomic } from '../store/atomic.js'
import { FILES } from '../cassette/fixture-files.js'
import { readSource } from '../cassette/fixture-source.js'
import { fixtureError, refuseSecrets } from '../cassette/fixture-error.js'
import { readJsonl } from '../cassette/jsonl.js'
import { loadZod } from '../cassette/cell-schema.js'
import type * as Zod from 'zod/mini'
import { scanText } from '../cassette/scan.js'
import type { ScanOptions } from '../cassette/scan-value.js'
import { rerunCommand } from '../runners/command.js'
import { notice } from '../errors.js'
import { readGolden } from '../golden/update-mode.js'
import { tapeUses } from './uses.js'

/** One line of `judge.jsonl`. */
export interface JudgeEntry {
  key: string
  criterion: string
  /** The judge: `anthropic/claude-haiku-4-5` or `fn:<name>`. */
  model: string
  verdict: 'PASS' | 'FAIL'
  rationale: string
  score?: number
  instructions?: string
  threshold?: number
  /** Digest of the judged (redacted) text; the text itself is in the trace, not here. */
  textDigest: string
  recordedAt: string
  templateVersion: number
}

const rel = (file: string) => relative(process.cwd(), file) || file

/**
 * Path of a scenario's `judge.jsonl`.
 * @example
 * judgeFile('tests/scenarios/refund') // 'tests/scenarios/refund/judge.jsonl'
 */
export function judgeFile(dir: string): string {
  return join(dir, FILES.judge)
}

/**
 * Read a scenario's verdicts (`[]` when it has no `judge.jsonl`): scanned for
 * secrets, every line validated (errors name the file and line).
 * @example
 * readJudgeTape('tests/scenarios/refund').length
 */
export function readJudgeTape(dir: string, opts: ScanOptions = {}): JudgeEntry[] {
  const file = judgeFile(dir)
  const fix = () => `Fix the line by hand, or delete it and re-grade with \`${rerunCommand('FLUX_GOLDEN=judge', readSource(dir))}\`.`
  const { lines } = readJsonl<JudgeEntry>(file, {
    schema: judgeEntrySchema,
    accepts: isJudgeEntry,
    noun: '',
    fix,
    scan: {
      disable: opts.disable,
      fix: 'Remove the secret from the file (and rotate it: it was committed), or delete the line and re-grade with FLUX_GOLDEN=judge.',
    },
  })
  const lineOf = new Map<string, number>()
  for (const { line, value } of lines) {
    const seen = lineOf.get(value.key)
    if (seen !== undefined)
      throw fixtureError(
        'FLUX_FIXTURE_INVALID',
        { file, line, field: 'key', reason: `the key repeats line ${seen} (a merge kept both verdicts?); delete one of the two lines`, fix: fix() },
        '',
      )
    lineOf.set(value.key, line)
  }
  return lines.map((l) => l.value)
}

/**
 * The file text: one verdict a line, keys sorted, lines ordered by criterion, judge and key.
 * @example
 * serializeJudgeTape(entries)
 */
export function serializeJudgeTape(entries: readonly JudgeEntry[]): string {
  const sorted = [...entries].sort((a, b) => cmp(a.criterion, b.criterion) || cmp(a.model, b.model) || cmp(a.key, b.key))
  return sorted.map((e) => stableJson(e)).join('\n') + (sorted.length ? '\n' : '')
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * Rewrite `judge.jsonl` with `entries` (atomically: temp file + rename). The text is
 * scanned first; a finding writes nothing. No entries removes nothing and writes an empty file.
 * @example
 * writeJudgeTape('tests/scenarios/refund', [...entries, entry])
 */
export function writeJudgeTape(dir: string, entries: readonly JudgeEntry[], opts: ScanOptions = {}): void {
  const text = serializeJudgeTape(entries)
  const file = judgeFile(dir)
  refuseSecrets(scanText(text, FILES.judge, opts), {
    failed: `write ${rel(file)}`,
    fix: 'Nothing was written. Add a redaction rule (`redact: { replace: [...] }` in the fluxlab options) for the value the judge echoed.',
  })
  writeFileAtomic(file, text)
}

/**
 * What a judge.jsonl line must be, built on first use. @note issue 39 (bench section 6): zod was about 60 ms of CPU in
 * every process that imports `fluxlab` (a spec's `Rubric`, in Playwright's runner and each worker); a good line passes
 * {@link isJudgeEntry}, so zod is loaded only for a bad line's message, as for cells (src/cassette/cell-schema.ts).
 * @example
 * judgeEntrySchema.safeParse(JSON.parse(line)).success
 */
export const judgeEntrySchema: { safeParse(v: unknown): ReturnType<Zod.ZodMiniType['safeParse']> } = {
  safeParse: (v) => (builtSchema ??= buildEntrySchema()).safeParse(v),
}
let builtSchema: ReturnType<typeof buildEntrySchema> | undefined

function buildEntrySchema() {
  const z = loadZod()
  return z.looseObject(
    {
      key: z.string('expected a "key" like "sha256:…"').check(z.startsWith('sha256:', 'expected a "key" like "sha256:…"')),
      criterion: z.string('expected a string "criterion"'),
      model: z.string('expected a string "model" (the judge)'),
      verdict: z.enum(['PASS', 'FAIL'], 'expected "verdict" to be "PASS" or "FAIL"'),
      rationale: z.string('expected a string "rationale"'),
      textDigest: z.string('expected a string "textDigest"'),
      templateVersion: z.number('expected a numeric "templateVersion"'),
      recordedAt: z.string('expected a string "recordedAt"'),
      score: z.optional(z.number('expected "score" to be a number')),
      threshold: z.optional(z.number('expected "threshold" to be a number')),
      instructions: z.optional(z.string('expected "instructions" to be a string')),
    },
    'expected a JSON object (one verdict)',
  )
}

const STRINGS = ['criterion', 'model', 'rationale', 'textDigest', 'recordedAt'] as const
const finite = (v: unknown) => typeof v === 'number' && Number.isFinite(v)

/**
 * The schema above by hand: true only for a line it accepts (zod's `number` refuses NaN and the infinities).
 * @example
 * isJudgeEntry(JSON.parse(line))
 */
export function isJudgeEntry(v: unknown): boolean {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false
  const e = v as Record<string, unknown>
  return (
    typeof e.key === 'string' &&
    e.key.startsWith('sha256:') &&
    STRINGS.every((k) => typeof e[k] === 'string') &&
    (e.verdict === 'PASS' || e.verdict === 'FAIL') &&
    finite(e.templateVersion) &&
    (e.score === undefined || finite(e.score)) &&
    (e.threshold === undefined || finite(e.threshold)) &&
    (e.instructions === undefined || typeof e.instructions === 'string')
  )
}

// ---------------------------------------------------------------------------
// Which verdicts this process used, per judge.jsonl (for reporting and pruning).

const uses = tapeUses

/**
 * Record that this process used (served or graded) the verdict `key` of `dir`.
 * @example
 * markUsed(dir, 'refund', entry.key)
 */
export function markUsed(dir: string, scenario: string, key: string, scan: ScanOptions = {}): void {
  const file = judgeFile(dir)
  const use = uses.get(file) ?? { dir, scenario, used: new Set<string>(), scan }
  use.used.add(key)
  uses.set(file, use)
}

/**
 * Whether this process used the verdict `key` of `dir`.
 * @example
 * wasUsed(dir, entry.key)
 */
export function wasUsed(dir: string, key: string): boolean {
  return uses.get(judgeFile(dir))?.used.has(key) ?? false
}

/** What {@link finishJudgeTapes} found in one `judge.jsonl`. */
export interface JudgeTapeReport {
  file: string
  scenario: string
  /** Verdicts no judge call of this run used. */
  unused: JudgeEntry[]
  /** Whether they were removed from the file. */
  pruned: boolean
}

/**
 * Call when a test file ends (the runner setups' `afterAll`): for every `judge.jsonl`
 * a judge call of this process touched since the last call, list the verdicts no call
 * used. Under `FLUX_GOLDEN=judge` / `update` (or `prune: true`) they are removed from
 * the file; otherwise nothing is written. Returns one report per file with unused
 * verdicts, and forgets what it reported.
 * @note Pass `prune: false` when a test of the file failed: a test that stopped before its
 * later judge calls did not use their verdicts, and they are not stale.
 * @example
 * afterAll(() => { for (const r of finishJudgeTapes()) console.warn(describeJudgeTapeReport(r)) })
 */
export function finishJudgeTapes(options: { prune?: boolean; env?: NodeJS.ProcessEnv } = {}): JudgeTapeReport[] {
  const golden = readGolden(options.env)
  const prune = options.prune ?? (golden === 'judge' || golden === 'update')
  const reports: JudgeTapeReport[] = []
  for (const [file, use] of uses) {
    const entries = readJudgeTape(use.dir, use.scan)
    const unused = entries.filter((e) => !use.used.has(e.key))
    if (unused.length === 0) continue
    if (prune)
      writeJudgeTape(
        use.dir,
        entries.filter((e) => use.used.has(e.key)),
        use.scan,
      )
    reports.push({ file, scenario: use.scenario, unused, pruned: prune })
  }
  uses.clear()
  return reports
}

/**
 * The notice for a report: which verdicts went unused, and whether they were pruned.
 * @example
 * describeJudgeTapeReport(report) // '[fluxlab] judge.jsonl of scenario "refund": pruned 1 verdict no judge call used …'
 */
export function describeJudgeTapeReport(r: JudgeTapeReport): string {
  const n = r.unused.length
  const head = r.pruned
    ? `${rel(r.file)} (scenario "${r.scenario}"): pruned ${n} verdict${n > 1 ? 's' : ''} no judge call used in this run`
    : `${rel(r.file)} (scenario "${r.scenario}"): ${n} verdict${n > 1 ? 's' : ''} no judge call used in this run (FLUX_GOLDEN=judge prunes them)`
  return notice([head, ...r.unused.map((e) => `  • "${e.criterion}" by ${e.model} (${e.verdict})`)].join('\n'))
}
