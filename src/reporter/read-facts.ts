/**
 * The jest reporter's side of the facts file (the workers' side is facts.ts).
 * @note issue 14: apart from facts.ts so that the setup file, which loads in every test file's worker, does not
 * load zod for a schema only the reporter uses.
 */
import * as z from 'zod/mini'
import { readJsonl } from '../cassette/jsonl.js'
import { afterRetry, type FileFacts, type TestFacts } from './facts.js'

/** What a facts line must be for the summary to use it: one test's facts, or one test file's. */
const factsSchema = z.union([
  z.looseObject({
    file: z.string('expected a string "file"'),
    test: z.string('expected a string "test"'),
    base: z.string('expected a string "base"'),
    opened: z.array(z.string(), 'expected "opened" to be an array of strings'),
    sessions: z.array(z.looseObject({}), 'expected "sessions" to be an array'),
  }),
  z.looseObject({ kind: z.literal('file'), file: z.string('expected a string "file"'), base: z.string('expected a string "base"'), unsetKeys: z.array(z.string(), 'expected "unsetKeys" to be an array of strings') }),
])

/**
 * The jest reporter: every test's facts, and every test file's, in the run's facts file. A line a killed worker left
 * torn (or any other bad line) is left out: the facts only add to the summary, and that test's failure is reported by jest.
 * @example
 * readFacts(process.env.FLUX_FACTS_FILE!).tests.length
 */
export function readFacts(file: string): { tests: TestFacts[]; files: FileFacts[] } {
  const lines = readJsonl<TestFacts | ({ kind: 'file' } & FileFacts)>(file, { schema: factsSchema, noun: 'test facts', fix: 'Run the tests again.', scan: false, collect: true }).lines.map((l) => l.value)
  const tests = new Map<string, TestFacts>()
  // A test file's facts come in several lines (one more for each unset variable its code read): one entry a file.
  const files = new Map<string, FileFacts>()
  for (const l of lines) {
    if ('kind' in l && l.kind === 'file') {
      const seen = files.get(l.file)
      files.set(l.file, { ...seen, file: l.file, base: l.base, unsetKeys: [...new Set([...(seen?.unsetKeys ?? []), ...l.unsetKeys])].sort() })
    } else if ((l as TestFacts).fileLevel) {
      // The file scenario: a scenario of the file, not a test.
      const f = l as TestFacts
      files.set(f.file, { file: f.file, base: f.base, unsetKeys: [], ...files.get(f.file), outside: f })
    } else {
      // A retried test (`jest.retryTimes`) reports each attempt: its last one, carrying the earlier ones' live calls.
      const f = l as TestFacts
      const key = factsKey(f.file, f.test, f.nth)
      tests.set(key, afterRetry(tests.get(key), f))
    }
  }
  return { tests: [...tests.values()], files: [...files.values()] }
}

/**
 * Where a test's facts are filed: its file, its full name, and which test of that name it is (tests of one file may
 * share a name; SPEC §2 "Identity"), so namesakes are never folded into one as a retry's attempts are.
 * @example
 * factsKey('/repo/test/raw.test.cjs', 'raw response', 2)
 */
export const factsKey = (file: string, test: string, nth = 1): string => `${file}\0${test}\0${nth}`
