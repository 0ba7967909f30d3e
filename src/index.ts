/**
 * fluxlab: record an agent's model and tool calls once, replay them byte-exact
 * in vitest and jest.
 * @example
 * import { scenario } from 'fluxlab'
 * const s = await scenario('weather')
 * const out = await s.run(() => myAgent('What is the weather in Paris?'))
 * expect(out).toReplayFaithfully()
 */
export type { Chunk, Fixture, Manifest, ModelCell, ToolCell } from './cassette/cell.js'
export { FORMAT_VERSION } from './cassette/cell.js'
export type { Divergence, DivergenceCode, Severity } from './cassette/divergence.js'
export { readFixture } from './cassette/fixture.js'
export type { RedactorConfig } from './cassette/redact.js'
export { FluxError, isFluxError, type FluxErrorCode } from './errors.js'
export type { GoldenSwitch, Mode, UpdateState } from './golden/update-mode.js'
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
export type { NormalizedUsage, ProviderFamily, RequestedToolCall } from './providers/types.js'
export { configure } from './scenario/configure.js'
export type { FluxOptions } from './scenario/options.js'
export { Outcome, type ModelCall, type TraceSnapshot, type TrajectoryCall, type UsageSummary } from './scenario/outcome.js'
export { Scenario, scenario, type Lab, type ScenarioOptions } from './scenario/scenario.js'
export { VERSION } from './version.js'
