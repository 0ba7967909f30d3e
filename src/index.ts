/**
 * fluxlab: record an agent's model and tool calls once, replay them byte-exact
 * in vitest and jest.
 * @example
 * import { scenario } from 'fluxlab'
 * const s = await scenario('weather')
 * const out = await s.run(() => myAgent('What is the weather in Paris?'))
 * expect(out).toReplayFaithfully()
 */
import { matchers } from './matchers/index.js'
import { provideMatchers } from './matchers/lazy.js'

// The runner setup files register stand-ins for the matchers (see matchers/lazy.ts); a test file that loads fluxlab
// to make an outcome hands them the matcher code here.
provideMatchers(matchers)

export type { Chunk, Fixture, Manifest, ModelCell, ToolCell } from './cassette/cell.js'
export { FORMAT_VERSION } from './cassette/cell.js'
export type { Divergence, DivergenceCode, Severity } from './cassette/divergence.js'
export { readFixture } from './cassette/fixture.js'
export type { RedactorConfig } from './cassette/redact.js'
export { durable, type DurableOptions, type DurableResult, type ResurrectReport } from './durable/durable.js'
export { listJournals } from './cassette/journal.js'
export type { AgentModule, CrashReport, CrashRow, CrashWhen } from './scenario/crash.js'
export { FluxError, isFluxError, type FluxErrorCode } from './errors.js'
export type { GoldenSwitch, Mode, UpdateState } from './golden/update-mode.js'
export {
  Rubric,
  type FnRubricOptions,
  type JudgeApi,
  type JudgeEntry,
  type JudgeFn,
  type JudgeModelId,
  type JudgePrompt,
  type JudgeReply,
  type ModelRubricOptions,
  type RubricOptions,
  type Verdict,
} from './judge/index.js'
export {
  costBreakdown,
  costOf,
  priceFor,
  PRICES,
  PRICES_AS_OF,
  type CostBreakdown,
  type LongContextPrice,
  type ModelPrice,
  type PricingTable,
} from './pricing/index.js'
export type { FamilyFacts, ModelIds, Vendor } from './providers/facts.js'
export { registerFamily, type ProviderFamily, type RegisteredFamilies } from './providers/registry.js'
export type { ModelCallCodec, NormalizedUsage, ParsedModelRequest, ParsedModelResponse, RequestedToolCall, RequestRewrite } from './providers/types.js'
export { configure } from './context/configure.js'
export type { EndCheck, FluxOptions } from './context/options.js'
export { Outcome, type ModelCall, type TraceSnapshot, type TrajectoryCall, type UsageSummary } from './scenario/outcome.js'
export { Scenario, scenario, type Lab, type ScenarioOptions } from './scenario/scenario.js'
export { testOutcome } from './scenario/per-test.js'
export { CheckReport } from './scenario/check.js'
export { Counterfactual, type FirstDivergence, type ForkInfo } from './scenario/counterfactual.js'
export type { Fault, HttpFault, ModelFault, ToolFault } from './scenario/faults.js'
export type { AppliedChange, Halt, OffTape, ToolMatcher, ToolPolicy, WhatIfSpec } from './scenario/intervention.js'
export type { LiveMiss } from './scenario/pipeline/log.js'
export type { StepRef } from './scenario/steps.js'
export { SweepReport, whatIfOver, type SweepOptions, type SweepRow } from './scenario/sweep.js'
export type { DiffRow } from './scenario/trace-diff.js'
export { WhatIf } from './scenario/what-if.js'
export { mcp, tool, tools } from './scenario/router.js'
export type { McpTransport, McpTransportOptions } from './sources/mcp-transport.js'
export { VERSION } from './version.js'
