// One source interface for fluxlab's matchers; the runner files augment their
// runner's `Matchers` from it. Kept a .d.ts (STYLE "Matchers").

export interface FluxReplayFaithfullyOptions {
  /** Treat request drift (`model_request_drift`) as a failure too. */
  strict?: boolean
}

/** USD per million tokens. */
export interface FluxModelPrice {
  input: number
  output: number
  cacheRead?: number
  cacheWrite?: number
  longContext?: { threshold: number; input: number; output: number; cacheRead?: number; cacheWrite?: number }
}

export interface FluxCostUnderOptions {
  /** Prices by model id that win over the built-in table; `'*'` prices any call nothing else prices. */
  pricing?: Record<string, FluxModelPrice>
}

/** How `toCall` compares the expected names with the trajectory: see `FluxCallOptions.mode`. */
export type FluxCallMode = 'strict' | 'unordered' | 'subset' | 'superset'

export interface FluxCallOptions {
  /**
   * - `strict` (default): exactly these names, in this order.
   * - `unordered`: exactly these names with the same counts, in any order.
   * - `superset` (agentevals' meaning): what happened is a superset of the list: each listed name was called at least as often as it is listed; other calls are fine.
   * - `subset`: what happened is a subset of the list: no call outside it (an allow-list; counts ignored).
   */
  mode?: FluxCallMode
}

/** A judge rubric from 'fluxlab': `Rubric.model('<provider>/<model>')` or `Rubric.fn(judge)`. There is no default judge model. */
export interface FluxRubric {
  readonly kind: 'model' | 'fn'
  /** The judge: `anthropic/claude-haiku-4-5`, or `fn:<name>`. */
  readonly model: string
}

export interface FluxMatchers<R = unknown> {
  /**
   * Async, so `await` it. Passes when the judge grades the final text PASS on `criterion`, from the scenario's judge.jsonl;
   * a verdict not there rejects with FLUX_JUDGE_MISS (record it with FLUX_GOLDEN=judge), never a live call.
   * @example
   * await expect(out).toPassJudge('the answer cites the refund policy', Rubric.model('anthropic/claude-haiku-4-5'))
   */
  toPassJudge(criterion: string, rubric: FluxRubric): Promise<R>
  /**
   * Passes when the trajectory's tool-call names (`outcome.calls`, requested or executed, in order) match `names`.
   * @example
   * expect(out).toCall(['search', 'answer'])                        // exactly, in order
   * expect(out).toCall(['answer', 'search'], { mode: 'unordered' })
   * expect(out).toCall(['search'], { mode: 'superset' })               // at least one search
   * expect(out).toCall(['search', 'answer'], { mode: 'subset' })   // nothing else was called
   */
  toCall(names: readonly string[], options?: FluxCallOptions): R
  /**
   * Passes when some call of `name` has args equal to `args` (asymmetric matchers and `expect.addEqualityTesters` testers apply).
   * @example
   * expect(out).toCallWith('search', expect.objectContaining({ query: expect.stringContaining('Paris') }))
   */
  toCallWith(name: string, args: unknown): R
  /**
   * Passes when no call the model requested or the tool channel executed has this name (a RegExp is tested against the name).
   * @example
   * expect(out).toNeverCall(/^delete_/)
   */
  toNeverCall(name: string | RegExp): R
  /**
   * Passes when the run's final text (`outcome.text`) contains `text`, or matches it when it is a RegExp.
   * @example
   * expect(out).toHaveTextContaining('Paris')
   */
  toHaveTextContaining(text: string | RegExp): R
  /**
   * Passes when the run never left the tape: replay mode, no live model call, no failure-level divergence.
   * Also accepts a counterfactual (`{ outcome, hermetic }`); its own `hermetic` decides.
   * @example
   * expect(out).toBeHermetic()
   */
  toBeHermetic(): R
  /**
   * Passes when the counterfactual (`await s.injectAt(…).run(agent)`) first differs from its recording at `step` (as numbered in trace.snap).
   * @example
   * expect(cf).toDivergeAt(4)
   */
  toDivergeAt(step: number | string): R
  /**
   * Passes when a call of `name` (requested or run on the tool channel) happens after the counterfactual's fault.
   * @example
   * expect(cf).toBeCompensatedWith('notify.send')
   */
  toBeCompensatedWith(name: string): R
  /**
   * Passes when every boundary of a crash matrix resumed and nothing but the operation in flight at the kill ran twice.
   * @example
   * expect(await s.crashMatrix('./agent.mjs')).toResumeWithoutReexecution()
   */
  toResumeWithoutReexecution(): R
  /** Passes when the recorded run's model calls, at list prices, cost strictly less than `usd`; a model with no known price throws. */
  toCostUnder(usd: number, options?: FluxCostUnderOptions): R
  /** Passes when the run did not leave the tape (no failure-level divergence; with `strict`, no drift either). */
  toReplayFaithfully(options?: FluxReplayFaithfullyOptions): R
  /** Passes when the run's trace equals the fixture's `trace.snap` (`-u` / `FLUX_GOLDEN=snapshots` rewrite it offline). */
  toMatchTraceSnapshot(): R
}
