/**
 * Issue 14: a model cell's stored fields are checked against its chunks when the cell is first used, not by the
 * read. A hand-edited cell is still refused, with the error the read used to throw, before any of it reaches the
 * agent, the outcome or a matcher; a cell replay never serves still fails the run (the unused calls are listed).
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import OpenAI from 'openai'
import { expect, test } from 'vitest'
import { readFixture, scenario } from 'fluxlab'
import { REPO } from '../e2e/support/project.js'
import { capitalToolLoop } from '../support/capital-agent.js'
import { tempDir, useEngineSandbox } from './helpers.js'

useEngineSandbox()

const SOURCE = join(REPO, 'examples/scenarios/capital-agent')
const TEST = "capital-agent/capital.test.ts -t '^answers with the capital after calling the geography tool$'"
const RERECORD = `Re-record the scenario with \`FLUX_GOLDEN=update npx vitest run ${TEST} (or FLUX_GOLDEN=update npx jest ${TEST})\`, or restore the line from version control.`

/** capital-agent copied under a temp root, its model.jsonl line `line` given `text`. */
function editedFixture(line: number, text: string): { root: string; dir: string } {
  const root = tempDir()
  const dir = join(root, 'capital-agent')
  cpSync(SOURCE, dir, { recursive: true })
  const file = join(dir, 'model.jsonl')
  const lines = readFileSync(file, 'utf8').split('\n')
  lines[line - 1] = JSON.stringify({ ...JSON.parse(lines[line - 1]), text })
  writeFileSync(file, lines.join('\n'))
  return { root, dir }
}

/** The recorded agent; `steps` model calls at most. Keeps the texts it was served in `texts`. */
const agent = (steps: number, texts: string[]): Promise<string[]> =>
  capitalToolLoop(new OpenAI({ apiKey: 'sk-placeholder', baseURL: 'http://127.0.0.1:41591/v1', maxRetries: 0 }), { steps, texts })

/** The error a read of the edited fixture threw before issue 14 moved the check to first use. */
const refusal = (dir: string) =>
  `[fluxlab] FLUX_FIXTURE_INVALID: Failed to read fixture ${relative(process.cwd(), join(dir, 'model.jsonl'))}:2: its stored "text" is "Paris", but its response.chunks say "The capital of the UK is London." (the agent is served the chunks; matchers read "text") ${RERECORD}`

test('a hand-edited cell is read, then refused when replay serves it, with the error a read used to throw; the cell before it is served', async () => {
  process.env.FLUX_OFFLINE = '1'
  const { root, dir } = editedFixture(2, 'Paris')
  expect(readFixture(dir).manifest.name).toBe('capital-agent')
  const s = await scenario('capital-agent', { dir: root })
  expect(s.mode).toBe('replay')
  const served: string[] = []
  const err = await s
    .run(() => agent(5, served))
    .then(
      () => undefined,
      (e: Error) => e,
    )
  expect(served).toEqual(['']) // the first call (a tool call, no text) was served; the edited answer never was
  expect(err?.message).toBe(refusal(dir))
  expect(() => readFixture(dir).model[1]).toThrow(refusal(dir))
})

test('a hand-edited cell replay never serves fails the run too: the recorded calls never made are checked when they are listed', async () => {
  process.env.FLUX_OFFLINE = '1'
  const { root, dir } = editedFixture(2, 'Paris')
  const served: string[] = []
  const err = await (await scenario('capital-agent', { dir: root }))
    .run(() => agent(1, served))
    .then(
      () => undefined,
      (e: Error) => e,
    )
  expect(served).toEqual([''])
  expect(err?.message).toBe(refusal(dir))
})
