/**
 * SPEC §2 "Identity": running one test alone gives the verdict it has in its file. An app often reads a static file once
 * (a token-count table from a CDN) and keeps it in memory for the rest of the file: only the first test that needed it
 * has the `GET` on its tape, and the same test run alone (the rerun command fluxlab prints) sends it again. A `GET` to a
 * host that is not a provider's, which the test's own tape cannot answer, is answered from a fixture another test of the
 * same file recorded, and the run notes it as shared (the summary counts it); a model call never is.
 */
import { relative, resolve, sep } from 'node:path'
import type { ToolCell } from '../../cassette/cell.js'
import { findFixtures, forkParent } from '../../cassette/find.js'
import { readSource } from '../../cassette/fixture-source.js'
import { readFixture } from '../../cassette/fixture.js'
import type { TestContext } from '../../context/types.js'
import { isProviderRequest } from '../../providers/registry.js'
import type { Answer, Stage } from './call.js'
import type { RunConfig } from './config.js'
import type { RunLog } from './log.js'
import { replayResponse } from './tape.js'

/**
 * The stage after the tape in a test's replay: a tape miss that is a plain `GET` of a non-provider host is answered from
 * the first fixture of the same test file that recorded the same request (same tool key), if one did; anything else goes
 * on to the off-tape stage.
 * @example
 * stages.push(tapeStage(config, log, fixture, iv), sharedReadStage(config, log), offTapeStage(config, log, iv))
 */
export function sharedReadStage(config: RunConfig, log: RunLog): Stage {
  let reads: Map<string, { cell: ToolCell; from: string }> | undefined
  return async (call, next, miss): Promise<Answer> => {
    const test = config.test
    if (!miss || !test || call.channel !== 'tool' || call.kind !== 'http' || call.request.method !== 'GET') return next(call, miss)
    if (isProviderRequest('GET', call.url, config.hosts)) return next(call, miss)
    reads ??= fileReads(test, config.dir, config.redactor.config.disable)
    const found = reads.get(call.key)
    if (!found?.cell.response) return next(call, miss)
    log.shared.push({ step: call.step, from: found.from })
    return { response: replayResponse(found.cell.response, { timing: config.timing, signal: call.request.signal }) }
  }
}

/**
 * Every answered `GET` tool cell of the other fixtures the test's file recorded, by tool key (the first recorded wins).
 * Read on the first miss only: a test whose tape answers every call never looks.
 */
function fileReads(test: TestContext, dir: string, disable?: readonly string[]): Map<string, { cell: ToolCell; from: string }> {
  const out = new Map<string, { cell: ToolCell; from: string }>()
  const file = relative(test.rootDir, test.testFile).split(sep).join('/')
  const base = resolve(dir, '..')
  for (const sibling of findFixtures(base)) {
    if (sibling === resolve(dir) || forkParent(sibling)) continue
    const source = readSource(sibling)
    if (!source || source.file.split(sep).join('/') !== file) continue
    let tools: readonly ToolCell[]
    try {
      tools = readFixture(sibling, { disable }).tools
    } catch {
      continue // a fixture that does not read is its own test's failure, not this one's
    }
    for (const cell of tools)
      if (cell.kind === 'http' && !cell.truncated && cell.response && cell.response.status > 0 && isGet(cell) && !out.has(cell.key))
        out.set(cell.key, { cell, from: relative(base, sibling).split(sep).join('/') })
  }
  return out
}

/** An http cell's name is `<METHOD> <host><path>` (`GET cdn.example.com/o200k_base.tiktoken`). */
const isGet = (cell: ToolCell) => cell.name.startsWith('GET ')
