import { setTimeout as sleep } from 'node:timers/promises'
import { FluxError } from '../../errors.js'
import { state } from '../../context/state.js'
import { excerptOf } from '../text.js'

/** One judge HTTP call: what to send and how patiently. */
export interface JudgeHttpRequest {
  url: string
  /** Headers; `undefined` values are not sent. */
  headers: { [name: string]: string | undefined }
  body: unknown
  timeoutMs: number
  retries: number
  /** For messages: `grade "<criterion>" with <model>`. */
  what: string
}

/** A 2xx reply, parsed. */
export interface JudgeHttpReply {
  status: number
  /** The body parsed as JSON. */
  json: unknown
  /** The raw body text (for error messages). */
  text: string
}

const RETRY_STATUS = new Set([408, 409, 429])
const isRetryStatus = (s: number) => RETRY_STATUS.has(s) || s >= 500

/**
 * POST JSON to a judge API with a per-attempt timeout and retries (408, 409, 429, 5xx,
 * timeouts and network errors, with backoff and `retry-after`). Any failure is a
 * `FLUX_JUDGE_ERROR` naming the URL and showing the reply (redacted).
 * @note The request is made outside any `Scenario.run` (AsyncLocalStorage `exit`), so a
 * judge called from inside an agent run passes through interception untouched and is
 * never recorded into `model.jsonl`.
 * @example
 * const { json } = await postJudge({ url, headers, body, timeoutMs: 60_000, retries: 2, what: 'grade "x" with openai/gpt-4.1-mini' })
 */
export async function postJudge(req: JudgeHttpRequest): Promise<JudgeHttpReply> {
  const attempts = req.retries + 1
  let last: { status?: number; text?: string; error?: string } = {}
  let made = 0
  for (let attempt = 1; attempt <= attempts; attempt++) {
    made = attempt
    let res: Response
    let text: string
    try {
      ;({ res, text } = await state.runs.exit(() => send(req)))
    } catch (e) {
      last = { error: transportError(e, req.timeoutMs) }
      if (attempt < attempts) {
        await sleep(backoff(attempt))
        continue
      }
      break
    }
    if (res.ok) {
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch {
        throw judgeError(req, `the reply (HTTP ${res.status}) is not JSON`, [`reply: ${excerptOf(text)}`])
      }
      return { status: res.status, json, text }
    }
    last = { status: res.status, text }
    if (attempt < attempts && isRetryStatus(res.status)) {
      await sleep(backoff(attempt, res.headers.get('retry-after')))
      continue
    }
    break
  }
  const tries = made > 1 ? ` after ${made} attempts` : ''
  if (last.status !== undefined) throw judgeError(req, `POST ${req.url} answered HTTP ${last.status}${tries}`, [`reply: ${excerptOf(last.text ?? '')}`])
  throw judgeError(req, `POST ${req.url} ${last.error}${tries}`, [])
}

async function send(req: JudgeHttpRequest): Promise<{ res: Response; text: string }> {
  const res = await fetch(req.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...defined(req.headers) },
    body: JSON.stringify(req.body),
    signal: AbortSignal.timeout(req.timeoutMs),
  })
  return { res, text: await res.text() }
}

const defined = (h: { [name: string]: string | undefined }): Record<string, string> =>
  Object.fromEntries(Object.entries(h).filter((e): e is [string, string] => e[1] !== undefined))

function transportError(e: unknown, timeoutMs: number): string {
  const err = e as Error & { cause?: { code?: string; message?: string } }
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') return `did not answer within ${timeoutMs} ms (the rubric's timeoutMs)`
  const cause = err?.cause?.code ?? err?.cause?.message
  return `failed (${err?.message ?? String(e)}${cause ? `: ${cause}` : ''})`
}

/** A reason ending in a parenthesis still gets its full stop (`formatMessage` treats `)` as an ending). */
function stop(reason: string): string {
  return reason.endsWith(')') ? `${reason}.` : reason
}

/** Exponential backoff (0.25 s, 0.5 s, 1 s, … up to 4 s), or `retry-after` seconds up to 10 s. */
function backoff(attempt: number, retryAfter?: string | null): number {
  const s = retryAfter ? Number(retryAfter) : NaN
  if (Number.isFinite(s) && s >= 0) return Math.min(s * 1000, 10_000)
  return Math.min(250 * 2 ** (attempt - 1), 4000)
}

/**
 * A `FLUX_JUDGE_ERROR`: the judge could not grade. Nothing is written when this is thrown.
 * @example
 * throw judgeError(req, 'the reply has no text', [`reply: ${excerptOf(body)}`])
 */
export function judgeError(req: Pick<JudgeHttpRequest, 'what'>, reason: string, details: string[]): FluxError {
  return new FluxError('FLUX_JUDGE_ERROR', {
    failed: req.what,
    reason: stop(reason),
    fix: 'Nothing was written to judge.jsonl. Check the judge model, its base URL and key, then re-grade with FLUX_GOLDEN=judge.',
    details,
  })
}
