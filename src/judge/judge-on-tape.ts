import { relative } from 'node:path'
import { createRedactor, type RedactorConfig } from '../cassette/redact.js'
import { FluxError, notice } from '../errors.js'
import { readFlag, readGolden } from '../golden/update-mode.js'
import { state } from '../context/state.js'
import { runningTestRef } from '../context/test-context.js'
import { rerunCommand } from '../runners/command.js'
import { keyVarsFor } from './clients/endpoint.js'
import { gradeLive } from './clients/index.js'
import { judgeKey, textDigest, type CanonicalJudgeRequest } from './key.js'
import { buildPrompt, TEMPLATE_VERSION } from './prompt.js'
import { isRubric, type Rubric } from './rubric.js'
import { judgeFile, markUsed, readJudgeTape, wasUsed, writeJudgeTape, type JudgeEntry } from './tape.js'
import { decide } from './verdict.js'

/** What `judgeOnTape` grades, and where its verdicts live. */
export interface JudgeOnTapeInput {
  /** The scenario directory holding `judge.jsonl`. */
  dir: string
  /** The scenario's name, for messages. */
  scenario: string
  criterion: string
  /** The judged text (usually `outcome.text`). */
  text: string
  rubric: Rubric
  /** The scenario's (or outcome's) mode: a recording run (`record`) grades live and records, like `FLUX_GOLDEN=judge`. */
  mode?: string
  /** Grade live and record. Default: `FLUX_GOLDEN` is `judge` or `update`, or `mode` is `record`. */
  regrade?: boolean
  /** The scenario's redaction rules. Default: the project's (`fluxlab({ redact })`). */
  redact?: RedactorConfig
  env?: NodeJS.ProcessEnv
}

/** A judge's verdict on one criterion. */
export interface Verdict {
  verdict: 'PASS' | 'FAIL'
  /** `verdict === 'PASS'`. */
  pass: boolean
  rationale: string
  /** From 0 to 1, for a scored rubric (or when the judge gave one). */
  score?: number
  /** The rubric's threshold, when it is scored. */
  threshold?: number
  criterion: string
  /** The judge: `anthropic/claude-haiku-4-5` or `fn:<name>`. */
  model: string
  /** The verdict's key in `judge.jsonl`. */
  key: string
  /** `tape`: served from `judge.jsonl`, no judge called. `live`: graded now (and recorded, unless the rubric is off tape). */
  source: 'tape' | 'live'
  recordedAt: string
  /** The judged text as the judge saw it (redacted). */
  text: string
}

/**
 * Grade `text` against `criterion` with a cassette: the canonical redacted judge
 * request is hashed and looked up in the scenario's `judge.jsonl`. A hit is served
 * from disk and no judge is called; a miss is `FLUX_JUDGE_MISS`, never a live call.
 * Under `FLUX_GOLDEN=judge` / `update` (or while the scenario records) the judge grades
 * live and the verdict is written; a stale verdict of the same criterion and judge that
 * this process did not use is replaced. Returns the verdict, PASS or FAIL: it does not throw on FAIL.
 * @example
 * const rubric = Rubric.model('openai/gpt-4.1-mini')
 * const v = await judgeOnTape({ dir: s.dir, scenario: s.name, mode: s.mode, criterion: 'cites the refund policy', text: out.text, rubric })
 * v.pass; v.rationale
 */
export async function judgeOnTape(input: JudgeOnTapeInput): Promise<Verdict> {
  checkInput(input)
  const { rubric, dir } = input
  const env = input.env ?? process.env
  const redactConfig = input.redact ?? state.options.redact
  const redactor = createRedactor(redactConfig)
  const scan = { disable: redactConfig?.disable }
  const criterion = redactor.text(input.criterion)
  const text = redactor.text(input.text)
  const instructions = rubric.instructions === undefined ? undefined : redactor.text(rubric.instructions)
  const canonical: CanonicalJudgeRequest = {
    templateVersion: TEMPLATE_VERSION,
    model: rubric.model,
    criterion,
    text,
    ...(instructions !== undefined ? { instructions } : {}),
    ...(rubric.threshold !== undefined ? { threshold: rubric.threshold } : {}),
  }
  const key = judgeKey(canonical)
  const what = `grade "${criterion}" with ${rubric.model}`
  const golden = readGolden(env)
  const regrade = input.regrade ?? (golden === 'judge' || golden === 'update' || input.mode === 'record')

  if (!rubric.onTape) {
    const reply = await gradeLive(rubric, buildPrompt({ criterion, text, instructions, threshold: rubric.threshold }), what, env)
    const verdict = decide(reply, rubric.threshold)
    return toVerdict(
      { key, criterion, model: rubric.model, verdict, rationale: redactor.text(reply.rationale), score: reply.score, recordedAt: new Date().toISOString() },
      rubric,
      text,
      'live',
    )
  }

  if (!regrade) {
    const entries = readJudgeTape(dir, scan)
    const hit = entries.find((e) => e.key === key)
    if (!hit) throw missError(input, canonical, entries, criterion)
    markUsed(dir, input.scenario, key, scan)
    return toVerdict(hit, rubric, text, 'tape')
  }

  if (rubric.kind === 'model' && readFlag('FLUX_OFFLINE', env))
    throw new FluxError('FLUX_OFFLINE', {
      failed: `${what} in scenario "${input.scenario}"`,
      reason: `FLUX_OFFLINE=1 forbids live requests and ${golden ? `FLUX_GOLDEN=${golden}` : 'this recording run'} asks the judge to grade live`,
      fix: 'Unset FLUX_OFFLINE to grade, or unset FLUX_GOLDEN to grade from judge.jsonl.',
    })
  const reply = await gradeLive(rubric, buildPrompt({ criterion, text, instructions, threshold: rubric.threshold }), what, env)
  const entry: JudgeEntry = {
    key,
    criterion,
    model: rubric.model,
    verdict: decide(reply, rubric.threshold),
    rationale: redactor.text(reply.rationale),
    ...(reply.score !== undefined ? { score: reply.score } : {}),
    ...(instructions !== undefined ? { instructions } : {}),
    ...(rubric.threshold !== undefined ? { threshold: rubric.threshold } : {}),
    textDigest: textDigest(text),
    recordedAt: new Date().toISOString(),
    templateVersion: TEMPLATE_VERSION,
  }
  // @note read, merge and write with no await in between: two judge calls of this process never lose each other's line.
  const current = readJudgeTape(dir, scan)
  const stale = current.filter((e) => e.key !== key && e.criterion === criterion && e.model === rubric.model && !wasUsed(dir, e.key))
  writeJudgeTape(dir, [...current.filter((e) => e.key !== key && !stale.includes(e)), entry], scan)
  markUsed(dir, input.scenario, key, scan)
  if (stale.length)
    console.warn(
      notice(
        `${rel(judgeFile(dir))} (scenario "${input.scenario}"): replaced ${stale.length} stale verdict${stale.length > 1 ? 's' : ''} of "${criterion}" by ` +
          `${rubric.model} (${staleWhy(stale, entry)})`,
      ),
    )
  return toVerdict(entry, rubric, text, 'live')
}

/**
 * The throwing form of {@link judgeOnTape}: resolves with the verdict on PASS, throws
 * `FLUX_JUDGE_FAILED` with the criterion, the judge's rationale and the judged text on FAIL.
 * @example
 * await assertJudgeOnTape({ dir: s.dir, scenario: s.name, mode: s.mode, criterion: 'cites the refund policy', text: out.text, rubric })
 */
export async function assertJudgeOnTape(input: JudgeOnTapeInput): Promise<Verdict> {
  const v = await judgeOnTape(input)
  if (v.pass) return v
  throw new FluxError('FLUX_JUDGE_FAILED', {
    failed: `pass the judge in scenario "${input.scenario}"`,
    reason: `${v.model} graded "${v.criterion}" FAIL`,
    fix: `If the agent is right and the judge is wrong, change the criterion or the rubric and re-grade with \`${regradeCommand()}\`.`,
    details: verdictDetails(v),
  })
}

/**
 * Bullet lines describing a verdict: rationale, score, judged text, where it came from.
 * @example
 * verdictDetails(v) // ['rationale: …', 'judged text: "…"', 'verdict from judge.jsonl']
 */
function verdictDetails(v: Verdict, width = 400): string[] {
  return [
    `rationale: ${v.rationale || '(none given)'}`,
    ...(v.score !== undefined ? [`score: ${v.score}${v.threshold !== undefined ? ` (threshold ${v.threshold})` : ''}`] : []),
    `judged text: ${clip(v.text, width)}`,
    v.source === 'tape' ? 'verdict from judge.jsonl' : 'verdict graded live just now',
  ]
}

/**
 * The command that re-grades the running test's judges.
 * @example
 * regradeCommand() // "FLUX_GOLDEN=judge npx vitest run test/refund.test.ts -t '^refunds$'"
 */
export function regradeCommand(): string {
  return rerunCommand('FLUX_GOLDEN=judge', runningTestRef())
}

function toVerdict(
  e: Pick<JudgeEntry, 'key' | 'criterion' | 'model' | 'verdict' | 'rationale' | 'score' | 'recordedAt'>,
  rubric: Rubric,
  text: string,
  source: 'tape' | 'live',
): Verdict {
  return {
    verdict: e.verdict,
    pass: e.verdict === 'PASS',
    rationale: e.rationale,
    ...(e.score !== undefined ? { score: e.score } : {}),
    ...(rubric.threshold !== undefined ? { threshold: rubric.threshold } : {}),
    criterion: e.criterion,
    model: e.model,
    key: e.key,
    source,
    recordedAt: e.recordedAt,
    text,
  }
}

function checkInput(input: JudgeOnTapeInput): void {
  const bad = (reason: string, fix: string) => new FluxError('FLUX_BAD_CONFIG', { failed: `grade in scenario "${input.scenario}"`, reason, fix })
  if (typeof input.criterion !== 'string' || input.criterion.trim() === '')
    throw bad('the criterion is empty', "Pass what the text must do, e.g. 'the answer cites the refund policy'.")
  if (typeof input.text !== 'string') throw bad(`the judged text must be a string (received ${typeof input.text})`, 'Pass the text to judge, e.g. out.text.')
  if (!isRubric(input.rubric))
    throw bad(
      'the rubric is not a Rubric',
      "Pass Rubric.model('<provider>/<model>') (e.g. Rubric.model('anthropic/claude-haiku-4-5')) or Rubric.fn(yourJudge): there is no default judge model.",
    )
}

function missError(input: JudgeOnTapeInput, now: CanonicalJudgeRequest, entries: JudgeEntry[], criterion: string): FluxError {
  const { rubric } = input
  const needs = rubric.kind === 'model' ? `grades live with ${keyVarsFor(rubric).join(' or ')}` : `runs your ${rubric.model} judge`
  const file = rel(judgeFile(input.dir))
  return new FluxError('FLUX_JUDGE_MISS', {
    failed: `grade "${criterion}" in scenario "${input.scenario}"`,
    reason: `${file} has no verdict for this criterion, judged text and rubric (judge ${rubric.model}); fluxlab never grades live on a miss`,
    fix: `Record it with \`${regradeCommand()}\` (${needs}; the agent's own calls stay on tape), then commit ${file}.`,
    details: closest(now, entries, file),
  })
}

function closest(now: CanonicalJudgeRequest, entries: JudgeEntry[], file: string): string[] {
  if (entries.length === 0) return [`${file} holds no verdicts yet`]
  const nowDigest = textDigest(now.text)
  const diffs = (e: JudgeEntry): string[] => {
    const out: string[] = []
    if (e.criterion !== now.criterion) out.push(`criterion differs: recorded ${JSON.stringify(e.criterion)}, now ${JSON.stringify(now.criterion)}`)
    if (e.model !== now.model) out.push(`judge model differs: recorded ${e.model}, now ${now.model}`)
    if (e.textDigest !== nowDigest) out.push(`judged text differs: recorded ${e.textDigest}, now ${nowDigest}`)
    if ((e.instructions ?? '') !== (now.instructions ?? ''))
      out.push(
        `rubric instructions differ: recorded ${e.instructions === undefined ? 'none' : clip(e.instructions, 120)}, now ` +
          `${now.instructions === undefined ? 'none' : clip(now.instructions, 120)}`,
      )
    if (e.threshold !== now.threshold) out.push(`threshold differs: recorded ${e.threshold ?? 'none'}, now ${now.threshold ?? 'none'}`)
    if (e.templateVersion !== now.templateVersion)
      out.push(`prompt template differs: recorded v${e.templateVersion}, this fluxlab sends v${now.templateVersion}`)
    return out
  }
  const best = entries.map((e) => ({ e, d: diffs(e) })).sort((a, b) => a.d.length - b.d.length)[0]
  return [
    `closest recorded verdict: ${JSON.stringify(best.e.criterion)} by ${best.e.model} (${best.e.verdict}, recorded ${best.e.recordedAt})`,
    ...best.d.map((d) => `  ${d}`),
  ]
}

function staleWhy(stale: JudgeEntry[], entry: JudgeEntry): string {
  const reasons = new Set<string>()
  for (const e of stale) {
    if (e.textDigest !== entry.textDigest) reasons.add('judged text changed')
    if ((e.instructions ?? '') !== (entry.instructions ?? '') || e.threshold !== entry.threshold) reasons.add('rubric changed')
    if (e.templateVersion !== entry.templateVersion) reasons.add('prompt template changed')
  }
  return [...reasons].join(', ') || 'superseded'
}

const clip = (s: string, width: number) => JSON.stringify(s.length > width ? `${s.slice(0, width - 1)}…` : s)
const rel = (p: string) => relative(process.cwd(), p) || p
