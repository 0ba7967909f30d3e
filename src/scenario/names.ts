import { createHash } from 'node:crypto'
import { relative } from 'node:path'
import { copiesProblem } from '../context/copies.js'
import { runningTestRef } from '../context/test-context.js'
import type { TestContext } from '../context/types.js'
import { FluxError } from '../errors.js'
import { runnerAdapter } from '../runners/registry.js'

/** The longest default scenario name (one directory name, so it stays well under every file system's limit). */
const MAX = 120

/**
 * The default name of a test's scenario: a slug of the test file and full test name, plus a
 * hash of both. The slug is cut to fit, the hash never is, so two long names that share their
 * first 120 characters still get their own fixtures.
 * @example
 * defaultName(test) // 'test-agent--weather-answers-in-celsius-3f9a1c'
 * defaultName(test, 'explicit') // 'test-agent--weather-answers-in-celsius--explicit-9b20e4' (whole-suite mode)
 * defaultName({ ...test, nth: 2 }) // 'test-agent--weather-answers-in-celsius--2-61d0a7' (a second test of that name in the file)
 */
export function defaultName(test: TestContext | undefined, role?: 'explicit'): string {
  if (!test) {
    // @note inside a runner's test without fluxlab's setup (plugin missing, setup file not loaded): say that, not "no test".
    const running = runningTestRef()
    if (running)
      throw new FluxError('FLUX_BAD_CONFIG', {
        failed: `open a scenario without a name in ${running.runner} test "${running.name ?? running.file}"`,
        reason: copiesProblem() ?? "fluxlab's setup is not installed in this test run, so fluxlab cannot see which test is running",
        fix: copiesProblem()
          ? 'Install one version of fluxlab (`npm ls fluxlab`, then `npm dedupe` or align the versions), or pass a name: `scenario("weather")`.'
          : `${runnerAdapter(running.runner)?.setupFix ?? "Install fluxlab's setup in your test runner"}, or pass a name: \`scenario("weather")\`.`,
      })
    throw new FluxError('FLUX_BAD_CONFIG', {
      failed: 'open a scenario without a name',
      reason: 'there is no running test to name it after',
      fix: 'Pass a name: `scenario("weather")`, or call it inside a vitest/jest test with the fluxlab setup installed.',
    })
  }
  const file = relative(test.rootDir, test.testFile).replace(/\.[cm]?[jt]sx?$/, '')
  // @note an unnamed `scenario()` inside a test that whole-suite mode already made a scenario of gets a name of its own.
  // @note SPEC §2 "Identity": the second test of a file with the same full name is another scenario; the first keeps the
  // name it always had, so fixtures recorded before duplicates were told apart still replay.
  const nth = test.nth && test.nth > 1 ? test.nth : undefined
  const hash = createHash('sha256')
    .update(`${file}\0${test.testName}${nth ? `\0#${nth}` : ''}${role ? `\0${role}` : ''}`)
    .digest('hex')
    .slice(0, 6)
  const head = `${slug(file)}--${slug(test.testName)}${nth ? `--${nth}` : ''}${role ? `--${role}` : ''}`
  return `${head.slice(0, MAX - hash.length - 1).replace(/-+$/, '')}-${hash}`
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
