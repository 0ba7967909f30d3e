// One source interface for fluxlab's matchers; the runner files augment their
// runner's `Matchers` from it. Kept a .d.ts (STYLE "Matchers").

export interface FluxReplayFaithfullyOptions {
  /** Treat request drift (`model_request_drift`) as a failure too. */
  strict?: boolean
}

export interface FluxMatchers<R = unknown> {
  /** Passes when the run did not leave the tape (no failure-level divergence; with `strict`, no drift either). */
  toReplayFaithfully(options?: FluxReplayFaithfullyOptions): R
  /** Passes when the run's trace equals the fixture's `trace.snap` (`-u` / `FLUX_GOLDEN=snapshots` rewrite it offline). */
  toMatchTraceSnapshot(): R
}
