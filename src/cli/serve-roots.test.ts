import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { deathCause, hasFixtures, rootMismatch, testsRoot } from './serve-roots.js'

// A project laid out as issue 39 found it: the config in e2e/, the tests' fixtures beside it, none at the root.
const app = mkdtempSync(join(tmpdir(), 'flux-serve-roots-'))
const put = (rel: string, text = '') => {
  mkdirSync(join(app, rel, '..'), { recursive: true })
  writeFileSync(join(app, rel), text)
}
put('e2e/playwright.config.ts')
put('e2e/tests/scenarios/tests-chat-spec--answers-1a2b3c/scenario.yaml', 'keyVars:\n  - OPENAI_API_KEY\n')
put('tests/scenarios/.files/x.yaml')
afterAll(() => rmSync(app, { recursive: true, force: true }))
const ROOT = join(app, 'tests/scenarios')
const TESTS = join(app, 'e2e/tests/scenarios')
const STDERR = 'OpenAIError: Missing credentials. Please pass an `apiKey`, or set the `OPENAI_API_KEY` environment variable.'

describe('testsRoot', () => {
  test("finds the tests' root under the config that started serve, or under a playwright.config one folder down", () => {
    expect(testsRoot(join(app, 'e2e'), { FLUX_PLAYWRIGHT_DIR: '' })).toBe(TESTS)
    expect(testsRoot(join(app, 'e2e'), { FLUX_PLAYWRIGHT_DIR: 'recordings' })).toBe(join(app, 'e2e/recordings'))
    expect(testsRoot(join(app, 'e2e'), {})).toBe(TESTS)
    expect(testsRoot(app, {})).toBe(TESTS)
    expect(testsRoot(join(app, 'tests'), {})).toBeUndefined()
  })
})

describe('rootMismatch', () => {
  test('says nothing when serve reads the root that has the fixtures', () => {
    expect(hasFixtures(ROOT)).toBe(false)
    expect(rootMismatch(TESTS, TESTS, app, {})).toBeUndefined()
    expect(rootMismatch(ROOT, join(app, 'nowhere'), app, {})).toBeUndefined()
  })

  test("names both paths and the fix when serve's root has no fixture and the tests' has", () => {
    expect(rootMismatch(ROOT, TESTS, app, {})).toEqual({
      failed: 'find the fixtures of the Playwright tests',
      reason:
        "serve reads tests/scenarios/, which holds no fixture, while the tests' fixtures are in e2e/tests/scenarios/: the app server gets no placeholder key and replays nothing of its own",
      fix: "Pass it to serve, `fluxlab serve --dir e2e/tests/scenarios -- …`, or wrap the entry in withFluxlab() from fluxlab/playwright, which runs serve in the config's directory",
    })
    expect(rootMismatch(join(app, 'e2e/recordings'), TESTS, join(app, 'e2e'), { FLUX_PLAYWRIGHT_DIR: '' })?.fix).toBe(
      "Give both one root: webServer: withFluxlab(entry, { dir: 'tests/scenarios' }) (from the config's directory)",
    )
  })
})

describe('deathCause', () => {
  const base = { code: 1, checked: true, root: ROOT, tests: TESTS, from: app, placeholders: [], keyVars: [], stderr: STDERR, env: {} }

  test('names the variable the server read, and that no fixture was found where serve looked', () => {
    const cause = deathCause(base)
    expect(cause.failed).toBe('start the app server under fluxlab serve (it exited with code 1 before it answered)')
    expect(cause.reason).toBe(
      "OPENAI_API_KEY is unset and got no placeholder: no fixture in tests/scenarios/, while the tests' fixtures are in e2e/tests/scenarios/",
    )
    expect(cause.fix).toContain('fluxlab serve --dir e2e/tests/scenarios')
  })

  test('names the variables the fixtures carried when the one the server read is not among them', () => {
    const cause = deathCause({
      ...base,
      root: TESTS,
      stderr: 'Error: ANTHROPIC_API_KEY is missing',
      keyVars: ['OPENAI_API_KEY'],
      placeholders: ['OPENAI_API_KEY'],
    })
    expect(cause.reason).toBe('ANTHROPIC_API_KEY is unset and got no placeholder: the fixtures in e2e/tests/scenarios/ name OPENAI_API_KEY')
    expect(cause.fix).toBe("Re-record with ANTHROPIC_API_KEY set (FLUX_GOLDEN=update), or name it in the config's `keys` (FLUX_KEYS=ANTHROPIC_API_KEY)")
  })

  test('clears the key when it held the placeholder, and says only what it knows without a variable', () => {
    expect(deathCause({ ...base, root: TESTS, keyVars: ['OPENAI_API_KEY'], placeholders: ['OPENAI_API_KEY'] }).reason).toContain(
      "held fluxlab's replay placeholder",
    )
    expect(deathCause({ ...base, stderr: 'Error: listen EADDRINUSE', checked: false }).reason).toBe(
      "no fixture in tests/scenarios/, while the tests' fixtures are in e2e/tests/scenarios/, so no key variable got a placeholder",
    )
    expect(deathCause({ ...base, stderr: 'Error: listen EADDRINUSE', root: TESTS, placeholders: ['OPENAI_API_KEY'] }).reason).toBe(
      'its error names no key variable, and fluxlab knows no cause of its own (placeholders were given for OPENAI_API_KEY)',
    )
    expect(deathCause({ ...base, stderr: 'Error: listen EADDRINUSE', tests: undefined }).reason).toBe(
      'its error names no key variable, and fluxlab knows no cause of its own (no fixture in tests/scenarios/, so no placeholder was given)',
    )
  })
})
