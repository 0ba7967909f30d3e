/**
 * Issue 38 item 8: a fluxlab error outside every test (a request refused at module top level or in a `beforeAll`) fails
 * its test file, and the runner shows it on the file, not on a test; the run summary counts such files by code.
 */
import { APP_SERVER, type FileFacts } from './facts.js'

/** A test file a fluxlab error failed outside every test. */
export interface FileFailure {
  /** Absolute path of the test file. */
  file: string
  /** `FLUX_OFFLINE`, `FLUX_NO_RECORDING`, … */
  code: string
  /** The error's first line, as the runner showed it. */
  message: string
}

const FLUX_CODE = /\[fluxlab\] (FLUX_[A-Z_]+):/

/**
 * The files whose own scenario (the calls outside every test) ended with a fluxlab error.
 * @example
 * fileFailures(fileFacts, moduleErrors) // [{ file: '/repo/test/config.test.ts', code: 'FLUX_OFFLINE', message: '[fluxlab] FLUX_OFFLINE: …' }]
 */
export function fileFailures(files: readonly FileFacts[], errors: ReadonlyArray<{ file: string; message: string }> = []): FileFailure[] {
  const out: FileFailure[] = []
  for (const f of files)
    for (const run of f.outside?.fileLevel && f.outside.test !== APP_SERVER ? f.outside.sessions : [])
      for (const { code, message } of run.failures)
        if (code === 'fatal') out.push({ file: f.file, code: FLUX_CODE.exec(message)?.[1] ?? 'FLUX_INTERNAL', message })
  // A file whose collection a fluxlab error ended (a refused request at module top level): the runner's error on the file
  // is all there is, its setup's hooks never ran.
  for (const e of errors) {
    const code = FLUX_CODE.exec(e.message)?.[1]
    const message = e.message.slice(e.message.indexOf('[fluxlab]')).split('\n')[0]
    if (code && !out.some((f) => f.file === e.file)) out.push({ file: e.file, code, message })
  }
  return out
}

/**
 * The summary's count of them, by code, most first.
 * @example
 * fileFailuresPart(failures) // 'test files failed outside their tests 2 (1 FLUX_NO_RECORDING, 1 FLUX_OFFLINE)'
 */
export function fileFailuresPart(failures: readonly FileFailure[]): string {
  const n = new Map<string, number>()
  for (const { code } of failures) n.set(code, (n.get(code) ?? 0) + 1)
  const codes = [...n].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1)).map(([code, k]) => `${k} ${code}`)
  return `test files failed outside their tests ${failures.length} (${codes.join(', ')})`
}
