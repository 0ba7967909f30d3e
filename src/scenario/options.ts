import type { FluxOptions } from '../context/options.js'

export interface ScenarioOptions extends FluxOptions {
  /** The agent's input, stored in `scenario.yaml` for readers of the fixture. */
  input?: unknown
}
