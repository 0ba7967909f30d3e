/**
 * The jest reporter's side of the facts file (the workers' side is facts.ts).
 * @note issue 14: apart from facts.ts so that the setup file, which loads in every test file's worker, does not
 * load zod for a schema only the reporter uses.
 */
import * as z from 'zod/mini'
import { readJsonl } from '../cassette/jsonl.js'
import type { TestFacts } from './facts.js'

/** What a facts line must be for the summary to use it. */
const factsSchema = z.looseObject({
  file: z.string('expected a string "file"'),
  test: z.string('expected a string "test"'),
  base: z.string('expected a string "base"'),
  opened: z.array(z.string(), 'expected "opened" to be an array of strings'),
  sessions: z.array(z.looseObject({}), 'expected "sessions" to be an array'),
})

/**
 * The jest reporter: every test's facts in the run's facts file. A line a killed worker left torn (or any
 * other bad line) is left out: the facts only add to the summary, and that test's failure is reported by jest.
 * @example
 * readFacts(process.env.FLUX_FACTS_FILE!).length
 */
export function readFacts(file: string): TestFacts[] {
  return readJsonl<TestFacts>(file, { schema: factsSchema, noun: 'test facts', fix: 'Run the tests again.', scan: false, collect: true }).lines.map((l) => l.value)
}
