import type { Fixture } from '../cassette/cell.js'
import { fixtureExists, readFixture } from '../cassette/fixture.js'
import { rerunCommand } from '../commands.js'
import { runningTestRef, testRef } from '../context/test-context.js'
import type { TestContext } from '../context/types.js'
import type { ModeDecision, UpdateState } from '../golden/update-mode.js'
import type { Intervention } from './intervention.js'
import type { ScenarioOptions } from './options.js'
import type { OutcomeCommands } from './outcome.js'
import { Run, type RunSettings } from './run.js'

/**
 * What one opened scenario is: its name, directory, mode and options, decided once by
 * `scenario()`. `Scenario`, what-ifs and `check` all start their runs from it.
 */
export interface ScenarioCore {
  name: string
  dir: string
  decision: ModeDecision
  options: ScenarioOptions
  settings: RunSettings
  updateState: UpdateState
  test?: TestContext
  /** The fixture (replay). */
  fixture?: Fixture
}

/**
 * The scenario's recording: the fixture it replays, or (while it records) the one on disk.
 * @example
 * const parent = recordedParent(core)
 */
export function recordedParent(core: ScenarioCore): Fixture | undefined {
  return core.fixture ?? (fixtureExists(core.dir) ? readFixture(core.dir, { disable: core.options.redact?.disable }) : undefined)
}

/**
 * The exact command that runs this scenario again under `env`: its test's, else this process's.
 * @example
 * scenarioCommand(core, 'FLUX_GOLDEN=update')
 */
function scenarioCommand(core: ScenarioCore, env: string): string {
  return rerunCommand(env, core.test ? testRef(core.test) : runningTestRef())
}

/** The commands an outcome of this scenario names. */
export function outcomeCommands(core: ScenarioCore): OutcomeCommands {
  return { rerecord: scenarioCommand(core, 'FLUX_GOLDEN=update'), updateTrace: scenarioCommand(core, 'FLUX_GOLDEN=snapshots') }
}

/**
 * A run of this scenario: its settings, its test, and the agent's input (the recorded one first).
 * @example
 * const run = startRun(core, { mode: 'replay', fixture: core.fixture })
 */
export function startRun(core: ScenarioCore, o: { mode: 'record' | 'replay'; fixture?: Fixture; intervention?: Intervention; name?: string; input?: unknown }): Run {
  return new Run({
    name: o.name ?? core.name,
    scenario: core.name,
    dir: core.dir,
    mode: o.mode,
    fixture: o.fixture,
    settings: core.settings,
    intervention: o.intervention,
    test: core.test,
    input: o.input ?? core.fixture?.manifest.input ?? core.options.input,
    command: (env) => scenarioCommand(core, env),
  })
}
