import { FluxError } from '../errors.js'
import { judgeApis, judgeProvider } from '../providers/registry.js'
import type { JudgeApi } from '../providers/types.js'
import type { JudgePrompt } from './prompt.js'

export type { JudgeApi }

/**
 * A judge model id: `<provider>/<model>` (`anthropic/claude-haiku-4-5`, `openai/gpt-4.1-mini`,
 * `google/gemini-2.5-flash`, `groq/llama-3.3-70b-versatile`). The provider part picks the API and the key.
 */
export type JudgeModelId = `${string}/${string}`

/** Options shared by every rubric; they are part of the verdict's key (changing one re-grades). */
export interface RubricOptions {
  /** Extra grading instructions sent with the criterion ("ignore tone", "the refund window is 30 days"). */
  instructions?: string
  /**
   * Makes the rubric scored: the judge also returns a score from 0 to 1, and the
   * verdict is PASS when `score >= threshold` (the score decides, not the judge's own word).
   */
  threshold?: number
}

/** Options of {@link Rubric.model}. Only `instructions` and `threshold` count toward the verdict's key. */
export interface ModelRubricOptions extends RubricOptions {
  /**
   * Base URL of the API (`https://api.openai.com/v1`, `https://api.anthropic.com`,
   * `https://generativelanguage.googleapis.com`). Default: `OPENAI_BASE_URL` /
   * `ANTHROPIC_BASE_URL` / `GEMINI_BASE_URL`, else the provider's. Required for
   * providers other than openai, anthropic and google (or set `<PROVIDER>_BASE_URL`).
   */
  baseURL?: string
  /** The wire API, when the provider part does not say it: any other provider speaks `openai` (the OpenAI-compatible API) by default. */
  api?: JudgeApi
  /** Env var holding the key. Default: `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `GEMINI_API_KEY`/`GOOGLE_API_KEY`, or `<PROVIDER>_API_KEY`. */
  apiKeyEnv?: string
  /** Per-attempt timeout in ms. Default 60000. */
  timeoutMs?: number
  /** Retries on 408, 409, 429, 5xx, a timeout or a network error. Default 2. */
  retries?: number
}

/** Options of {@link Rubric.fn}. */
export interface FnRubricOptions extends RubricOptions {
  /**
   * The judge's name on the tape (`fn:<name>` in `judge.jsonl`). Default: the function's name.
   * The function's code is not part of the key: give it a new name (`refund-check@2`) to re-grade after changing it.
   */
  name?: string
  /**
   * `true` (default): verdicts go on the tape like a model judge's (for a function that calls a paid model).
   * `false`: the function grades every time and `judge.jsonl` is never read or written (for a deterministic, free check).
   */
  tape?: boolean
}

/** What a judge answers: a verdict, a rationale, and a score for scored rubrics. */
export interface JudgeReply {
  verdict: 'PASS' | 'FAIL'
  rationale?: string
  /** From 0 to 1; required when the rubric has a `threshold`. */
  score?: number
}

/** A user-supplied judge: receives the rendered prompt (and its parts), returns a verdict. */
export type JudgeFn = (prompt: JudgePrompt) => JudgeReply | Promise<JudgeReply>

const DEFAULT_TIMEOUT_MS = 60_000
const DEFAULT_RETRIES = 2

/**
 * How an assertion is graded: by a named judge model, or by your own function.
 * There is no default model: a judge call costs money, and a default would spend it
 * on a model nobody chose (SPEC §6).
 * @example
 * Rubric.model('anthropic/claude-haiku-4-5')
 * Rubric.model('openai/gpt-4.1-mini', { instructions: 'The refund window is 30 days.', threshold: 0.8 })
 * Rubric.fn(async ({ text }) => ({ verdict: text.length < 500 ? 'PASS' : 'FAIL', rationale: `${text.length} chars` }), { name: 'short' })
 */
export class Rubric {
  /** `model` (a provider API) or `fn` (your function). */
  readonly kind: 'model' | 'fn'
  /** The judge's id as stored in `judge.jsonl`: `anthropic/claude-haiku-4-5`, or `fn:<name>`. */
  readonly model: string
  readonly instructions?: string
  readonly threshold?: number
  /** @internal */
  readonly api?: JudgeApi
  /** @internal the provider part of `model` (`anthropic`), lowercased */
  readonly provider?: string
  /** @internal the model part of `model` (`claude-haiku-4-5`) */
  readonly modelName?: string
  /** @internal */
  readonly fn?: JudgeFn
  /** @internal */
  readonly onTape: boolean
  /** @internal */
  readonly transport: { baseURL?: string; apiKeyEnv?: string; timeoutMs: number; retries: number }

  private constructor(init: {
    kind: 'model' | 'fn'
    model: string
    options: RubricOptions
    api?: JudgeApi
    provider?: string
    modelName?: string
    fn?: JudgeFn
    onTape: boolean
    transport?: ModelRubricOptions
  }) {
    this.kind = init.kind
    this.model = init.model
    if (init.options.instructions !== undefined) this.instructions = init.options.instructions
    if (init.options.threshold !== undefined) this.threshold = init.options.threshold
    this.api = init.api
    this.provider = init.provider
    this.modelName = init.modelName
    this.fn = init.fn
    this.onTape = init.onTape
    this.transport = {
      baseURL: init.transport?.baseURL,
      apiKeyEnv: init.transport?.apiKeyEnv,
      timeoutMs: init.transport?.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      retries: init.transport?.retries ?? DEFAULT_RETRIES,
    }
    Object.freeze(this)
  }

  /**
   * A judge model, always named: `<provider>/<model>`. `openai/…` speaks the OpenAI
   * API, `anthropic/…` the Anthropic Messages API, `google/…` (or `gemini/…`) the Gemini
   * API; any other provider speaks the OpenAI-compatible API at `baseURL`.
   * @example
   * await expect(out).toPassJudge('the answer cites the refund policy', Rubric.model('anthropic/claude-haiku-4-5'))
   * Rubric.model('groq/llama-3.3-70b-versatile', { baseURL: 'https://api.groq.com/openai/v1' }) // key from GROQ_API_KEY
   */
  static model(model: JudgeModelId, options: ModelRubricOptions = {}): Rubric {
    if (typeof model !== 'string' || model.trim() === '')
      throw badRubric(
        'Rubric.model()',
        `the judge model is missing (received ${describe(model)}); there is no default, so no assertion spends money on a model nobody chose`,
      )
    const slash = model.indexOf('/')
    const provider = model.slice(0, slash).trim().toLowerCase()
    const modelName = model.slice(slash + 1).trim()
    if (slash < 0 || !provider || !modelName)
      throw badRubric(
        `Rubric.model(${JSON.stringify(model)})`,
        'a judge model is named `<provider>/<model>` (anthropic/claude-haiku-4-5, openai/gpt-4.1-mini, google/gemini-2.5-flash)',
      )
    if (options.api !== undefined && !judgeApis.includes(options.api))
      throw badRubric(`Rubric.model(${JSON.stringify(model)})`, `api "${String(options.api)}" is not one of ${judgeApis.join(', ')}`)
    // @note which provider speaks which API is each family's to say (`judge.providers` in src/providers/<family>/judge.ts).
    const api: JudgeApi = options.api ?? judgeProvider(provider).api
    checkCommon(`Rubric.model(${JSON.stringify(model)})`, options)
    if (options.timeoutMs !== undefined && !(Number.isFinite(options.timeoutMs) && options.timeoutMs > 0))
      throw badRubric(`Rubric.model(${JSON.stringify(model)})`, `timeoutMs must be a positive number of milliseconds (received ${describe(options.timeoutMs)})`)
    if (options.retries !== undefined && !(Number.isInteger(options.retries) && options.retries >= 0))
      throw badRubric(`Rubric.model(${JSON.stringify(model)})`, `retries must be a whole number ≥ 0 (received ${describe(options.retries)})`)
    return new Rubric({ kind: 'model', model: `${provider}/${modelName}`, options, api, provider, modelName, onTape: true, transport: options })
  }

  /**
   * Your own judge: called with the rendered prompt and its parts, returns
   * `{ verdict: 'PASS' | 'FAIL', rationale?, score? }`. Its verdicts go on the tape
   * too unless `tape: false`.
   * @example
   * const keyword: JudgeFn = async ({ text }) => ({ verdict: text.includes('refund') ? 'PASS' : 'FAIL', rationale: 'keyword check' })
   * Rubric.fn(keyword, { name: 'keyword', tape: false })
   */
  static fn(fn: JudgeFn, options: FnRubricOptions = {}): Rubric {
    if (typeof fn !== 'function') throw badRubric('Rubric.fn()', `the judge must be a function (received ${describe(fn)})`)
    const name = (options.name ?? fn.name ?? '').trim() || 'judge'
    checkCommon(`Rubric.fn(${name})`, options)
    return new Rubric({ kind: 'fn', model: `fn:${name}`, options, fn, onTape: options.tape !== false })
  }
}

function checkCommon(what: string, options: RubricOptions): void {
  if (options.threshold !== undefined && !(typeof options.threshold === 'number' && options.threshold >= 0 && options.threshold <= 1))
    throw badRubric(what, `threshold must be a number from 0 to 1 (received ${describe(options.threshold)})`)
  if (options.instructions !== undefined && typeof options.instructions !== 'string')
    throw badRubric(what, `instructions must be a string (received ${describe(options.instructions)})`)
}

function describe(v: unknown): string {
  return v === undefined ? 'nothing' : typeof v === 'string' ? JSON.stringify(v) : typeof v === 'function' ? 'a function' : String(v)
}

function badRubric(what: string, reason: string): FluxError {
  return new FluxError('FLUX_BAD_CONFIG', {
    failed: `create ${what}`,
    reason,
    fix:
      "Name the judge model: Rubric.model('anthropic/claude-haiku-4-5'), Rubric.model('openai/gpt-4.1-mini'), Rubric.model('google/gemini-2.5-flash'), or " +
      'pass your own function to Rubric.fn().',
  })
}

/**
 * True for a Rubric (also one from a second copy of the library).
 * @example
 * isRubric(Rubric.model('openai/gpt-4.1-mini')) // true
 */
export function isRubric(v: unknown): v is Rubric {
  return (
    v instanceof Rubric ||
    (typeof v === 'object' &&
      v !== null &&
      ((v as Rubric).kind === 'model' || (v as Rubric).kind === 'fn') &&
      typeof (v as Rubric).model === 'string' &&
      'transport' in v)
  )
}
