/** The live stage's in-process tool call (`lab.tools`): its body run for real, its output or thrown error kept. */
import type { ToolCell } from '../../cassette/cell.js'
import { state, type RequestRoute } from '../../context/state.js'
import type { Answer, FnToolCall } from './call.js'
import { serializeError, stripUndefined, toJsonValue } from './cell-values.js'
import type { RunConfig } from './config.js'
import { journalCell } from './live-cells.js'
import type { RunLog } from './log.js'

/** What a request made by a running tool body meets: it passes untouched (even past a whole-suite attachment). */
const INSIDE_TOOL: RequestRoute = { handle: async () => undefined }

/**
 * Run an in-process tool for real and keep its output or thrown error.
 * @example
 * if (call.kind === 'fn') return runTool(config, log, call)
 */
export async function runTool(config: RunConfig, log: RunLog, call: Readonly<FnToolCall>): Promise<Answer> {
  const t0 = performance.now()
  const cell: ToolCell = {
    seq: call.seq,
    step: call.id,
    kind: 'fn',
    name: call.name,
    ...(call.callId ? { callId: call.callId } : {}),
    key: call.key,
    args: call.args,
    durationMs: 0,
    truncated: false,
  }
  config.journal?.intent({ kind: 'intent', seq: call.seq, step: call.step, key: call.key })
  try {
    // @note SPEC §3: traffic made inside a wrapped tool belongs to that tool's cell: it goes out as it would
    // without fluxlab and is not recorded, since a replay never runs the body that made it.
    const output = await state.runs.run(INSIDE_TOOL, () => call.run())
    const stored = config.redactor.json(toJsonValue(output))
    // SPEC §3: the cap applies to every cell. An output over it is not stored, and its replay is refused.
    const bytes = Buffer.byteLength(JSON.stringify(stored) ?? '')
    if (bytes > config.maxBytes) Object.assign(cell, { truncated: true, originalBytes: bytes })
    else cell.output = stored
    return { output }
  } catch (e) {
    cell.error = serializeError(e, config.redactor)
    return { error: e }
  } finally {
    cell.durationMs = Math.round(performance.now() - t0)
    log.entries.push({ seq: call.seq, channel: 'tool', cell: stripUndefined(cell), live: true })
    journalCell(config, log, 'tool', cell)
  }
}
