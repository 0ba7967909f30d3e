/**
 * The engine side of a holder (`./holder.ts`): the run it continues, built from the handoff, answering the child's
 * requests through the same admission and pipeline as the run in the process that started the child.
 */
import { readFixture } from '../cassette/fixture.js'
import { sentByChild } from '../sources/index.js'
import type { LiveSender } from '../sources/tree-live.js'
import type { RunHandoff, RunReturn } from '../scenario/handoff.js'
import { settingsFrom } from '../scenario/handoff.js'
import { admitTo } from '../scenario/router.js'
import { Run } from '../scenario/run.js'
import type { Holding } from '../scenario/tree.js'

/**
 * Continue the handed-over run: `answer` one request of the child's tree; `finish` when the child exited.
 * @example
 * const held = continueRun(holding)
 * const response = await held.answer(request, live)
 */
export function continueRun(holding: Holding): { answer(request: Request, live: LiveSender): Promise<Response | undefined>; finish(): Promise<RunReturn> } {
  const h = holding.run as RunHandoff
  const { settings, command } = settingsFrom(h)
  const fixture = h.mode === 'replay' ? readFixture(h.dir, { disable: settings.redactor.config.disable }) : undefined
  const run = new Run({ name: h.name, dir: h.dir, mode: h.mode, fixture, settings, command, start: { counters: h.counters, used: h.used } })
  return {
    // issue 39: a live call goes out from the process of the child's tree that made it (`live`), not from the holder
    answer: async (request, live) => {
      const admitted = admitTo(run, request, holding.command)
      return admitted ? sentByChild(live, () => admitted.answer()) : undefined
    },
    async finish() {
      // Recordings still reading their bodies end first; the unused cells are the run's to report, not the holder's.
      await run.log.closeStreams()
      return run.returned()
    },
  }
}
