/**
 * The jest reporter's side of the facts file (the workers' side is facts.ts).
 * @note issue 14: apart from facts.ts so that the setup file, which loads in every test file's worker, does not
 * load what only the reporter uses.
 */
import { readJsonl } from '../cassette/jsonl.js'
import { isRecord, isStrings } from '../providers/json.js'
import { afterRetry, type FileFacts, type TestFacts } from './facts.js'

/**
 * What a facts line must be for the summary to use it, as a message (`undefined`: it is one): one test's facts, or one
 * test file's (`kind: 'file'`).
 */
function factsProblem(v: unknown): string | undefined {
  if (!isRecord(v)) return 'expected a JSON object'
  if (typeof v.file !== 'string') return 'expected a string "file"'
  if (typeof v.base !== 'string') return 'expected a string "base"'
  if (v.kind === 'file') return isStrings(v.unsetKeys) ? undefined : 'expected "unsetKeys" to be an array of strings'
  if (typeof v.test !== 'string') return 'expected a string "test"'
  if (!isStrings(v.opened)) return 'expected "opened" to be an array of strings'
  return Array.isArray(v.sessions) && v.sessions.every(isRecord) ? undefined : 'expected "sessions" to be an array'
}

/**
 * The facts lines' check, in the shape `readJsonl` takes.
 * @note by hand, not zod: the reporter loads in the runner's main process of every run, and zod was most of its load
 * (about 50 ms of a Playwright run's CPU, bench section 6).
 */
const factsSchema = {
  safeParse(v: unknown) {
    const message = factsProblem(v)
    return message === undefined ? ({ success: true } as const) : ({ success: false, error: { issues: [{ message, path: [] }] } } as const)
  },
}

/**
 * The jest reporter: every test's facts, and every test file's, in the run's facts file. A line a killed worker left
 * torn (or any other bad line) is left out: the facts only add to the summary, and that test's failure is reported by jest.
 * @example
 * readFacts(process.env.FLUX_FACTS_FILE!).tests.length
 */
export function readFacts(file: string): { tests: TestFacts[]; files: FileFacts[] } {
  const lines = readJsonl<TestFacts | ({ kind: 'file' } & FileFacts)>(file, {
    schema: factsSchema,
    noun: 'test facts',
    fix: 'Run the tests again.',
    scan: false,
    collect: true,
  }).lines.map((l) => l.value)
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
