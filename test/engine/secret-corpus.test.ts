/**
 * Issue 13, the secret corpus: 14 fake credential patterns × 9 placements, each cell recorded with the
 * real openai SDK against the local provider server and replayed. No 8-character piece of any secret may
 * reach a fixture file, trace.snap, stdout/stderr or an error; the replay serves every cell with no
 * divergence; and a secret gets one placeholder wherever it appears.
 */
import { join } from 'node:path'
import { scenario, type Outcome } from 'fluxlab'
import { beforeAll, describe, expect, test } from 'vitest'
import { startProviderServer } from '../support/index.js'
import {
  PATTERN_IDS,
  PLACEMENTS,
  captureOutput,
  cellAgent,
  fakeSecret,
  filesUnder,
  leaks,
  placeholdersIn,
  providerScript,
  reportCounts,
  vaultScript,
  type FakeSecret,
  type Placement,
} from '../support/secret-corpus.js'
import { MODE_ENV, tempDir, useEngineSandbox } from './helpers.js'

useEngineSandbox()

interface CellRun {
  cell: string
  key: FakeSecret
  placement: Placement
  /** Fixture files, relative path → text. */
  files: Record<string, string>
  /** What recording and replay printed, threw and reported (divergences). */
  said: string
  recordError?: string
  replay?: Outcome<string>
}

const CELLS = PATTERN_IDS.flatMap((pattern) => PLACEMENTS.map((placement) => ({ pattern, placement })))
const runs: CellRun[] = []
const errorText = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}\n${e.stack ?? ''}` : String(e))

async function runCell(pattern: (typeof PATTERN_IDS)[number], placement: Placement, root: string): Promise<CellRun> {
  const key = fakeSecret(pattern)
  const name = `${pattern}--${placement}`
  const run: CellRun = { cell: `${pattern} × ${placement}`, key, placement, files: {}, said: '' }
  const server = await startProviderServer({ script: vaultScript(key), delayMs: 5 })
  server.queue(...providerScript(placement, key))
  const agent = cellAgent(placement, key, server, server.url)
  try {
    const recorded = await (await scenario(name, { dir: root })).run(agent)
    run.said += JSON.stringify(recorded.divergences)
  } catch (e) {
    run.recordError = errorText(e)
    run.said += run.recordError
  } finally {
    await server.close()
  }
  if (run.recordError === undefined) {
    try {
      run.replay = await (await scenario(name, { dir: root })).run(agent)
      run.said += JSON.stringify(run.replay.divergences)
    } catch (e) {
      run.said += errorText(e)
    }
  }
  run.files = filesUnder(join(root, name))
  return run
}

beforeAll(async () => {
  const root = tempDir()
  // The sandbox clears the mode variables (CI, FLUX_GOLDEN, …) for each test; this recording runs before them.
  const saved = MODE_ENV.map((k) => [k, process.env[k]] as const)
  for (const [k] of saved) delete process.env[k]
  const { output } = await captureOutput(async () => {
    for (let i = 0; i < CELLS.length; i += 6) runs.push(...(await Promise.all(CELLS.slice(i, i + 6).map((c) => runCell(c.pattern, c.placement, root)))))
  }).finally(() => {
    for (const [k, v] of saved) if (v !== undefined) process.env[k] = v
  })
  // Each cell's secret is its own, so a leak in the shared output still names its cell.
  for (const r of runs) r.said += output
  const fileLeaks = runs.filter((r) => Object.values(r.files).some((t) => leaks(t, r.key.secret)))
  reportCounts('record+replay', {
    cells: runs.length,
    cellsLeakingToFixtureFiles: fileLeaks.length,
    leakingCells: fileLeaks.map((r) => r.cell),
    fixtureFilesWithALeak: runs.reduce((n, r) => n + Object.values(r.files).filter((t) => leaks(t, r.key.secret)).length, 0),
    cellsLeakingToOutputOrErrors: runs.filter((r) => leaks(r.said, r.key.secret)).length,
    recordsRefused: runs.filter((r) => r.recordError).length,
    replaysWithDivergences: runs.filter((r) => !r.replay || r.replay.divergences.length > 0).length,
  })
}, 240_000)

describe('the secret corpus (14 patterns × 9 placements)', () => {
  test('records all 126 cells', () => {
    expect(runs).toHaveLength(126)
    expect(runs.filter((r) => r.recordError).map((r) => `${r.cell}: ${r.recordError!.split('\n')[0]}`)).toEqual([])
    for (const r of runs)
      expect(Object.keys(r.files).sort(), r.cell).toEqual(
        r.placement === 'tool-output' || r.placement === 'error-message'
          ? ['model.jsonl', 'scenario.yaml', 'tools.jsonl', 'trace.snap']
          : ['model.jsonl', 'scenario.yaml', 'trace.snap'],
      )
  })

  test('no piece of any secret reaches a fixture file or trace.snap', () => {
    const leaked = runs.flatMap((r) => Object.entries(r.files).flatMap(([file, text]) => (leaks(text, r.key.secret) ? [`${r.cell}: ${file}`] : [])))
    expect(leaked).toEqual([])
  })

  test('no piece of any secret reaches stdout, stderr, an error or a divergence', () => {
    expect(runs.filter((r) => leaks(r.said, r.key.secret)).map((r) => r.cell)).toEqual([])
  })

  test('every cell replays with no divergence', () => {
    expect(runs.flatMap((r) => (r.replay ? r.replay.divergences.map((d) => `${r.cell}: ${d.code} ${d.step}`) : [`${r.cell}: no replay`]))).toEqual([])
  })

  test('a secret in a tool result gets the placeholder it gets in the next request that carries it', () => {
    const drift = runs
      .filter((r) => r.placement === 'tool-output' || r.placement === 'error-message')
      .flatMap((r) => {
        const inTool = placeholdersIn(r.files['tools.jsonl'] ?? '')
        const inRequest = placeholdersIn(r.files['model.jsonl'] ?? '')
        return inTool.length === 1 && inTool.every((ph) => inRequest.includes(ph))
          ? []
          : [`${r.cell}: tools ${inTool.join(' ')} vs model ${inRequest.join(' ')}`]
      })
    expect(drift).toEqual([])
  })

  test('a split key is redacted in every chunk while each chunk stays a chunk', () => {
    for (const r of runs.filter((x) => x.placement === 'split-across-sse-events' || x.placement === 'cut-mid-event-across-writes')) {
      const cell = JSON.parse(r.files['model.jsonl'].split('\n')[0])
      const body: string = cell.response.chunks.map((c: { text: string }) => c.text).join('')
      // the content events (two, or one cut across two writes), finish, usage and [DONE]: every event survives
      // redaction (how many reads the network made of them varies; that redaction keeps each chunk a chunk is
      // pinned in src/cassette/redact.test.ts)
      expect(body.split('\n\n').filter(Boolean).length, r.cell).toBe(r.placement === 'split-across-sse-events' ? 5 : 4)
      expect(cell.text, r.cell).toMatch(/^Your deploy credential is .*\[REDACTED:[0-9a-f]{8}\].* \(keep it safe\)\.$/s)
    }
  })
})
