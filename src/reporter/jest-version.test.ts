import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test, vi } from 'vitest'
import FluxlabJestReporter from './jest-reporter.js'
import { checkJestVersion, JEST_RANGE, jestVersion } from './jest-version.js'

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  peerDependencies: { jest: string }
  devDependencies: { jest: string }
}

/** A project whose own node_modules holds a jest of this version (a real directory jest would resolve from). */
function projectWithJest(version: string): string {
  const root = mkdtempSync(join(tmpdir(), 'fluxlab-jest-version-'))
  mkdirSync(join(root, 'node_modules/jest'), { recursive: true })
  writeFileSync(join(root, 'package.json'), '{"name":"app","private":true}')
  writeFileSync(join(root, 'node_modules/jest/package.json'), JSON.stringify({ name: 'jest', version }))
  return root
}

describe('the jest version check', () => {
  const roots: string[] = []
  afterEach(() => {
    for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true })
    vi.restoreAllMocks()
  })

  test('the checked range is the peer range in package.json', () => {
    expect(JEST_RANGE).toBe(pkg.peerDependencies.jest)
  })

  test.each(['29.0.0', '29.7.0', '30.0.0', '30.5.2', '30.1.0-beta.1'])('%s is in the tested range', (v) => {
    expect(checkJestVersion(v)).toBeUndefined()
  })

  test.each(['28.1.3', '27.5.1', '24.9.0'])('%s is older: a warning naming the version, the range and the upgrade', (v) => {
    const warning = checkJestVersion(v)
    expect(warning).toContain(`jest ${v} is older than the tested range (${JEST_RANGE})`)
    expect(warning).toContain('npm install -D jest@^30')
  })

  test('a newer major is a warning naming the range', () => {
    expect(checkJestVersion('31.0.0')).toContain(`jest 31.0.0 is newer than the tested range (${JEST_RANGE})`)
  })

  test("reads the project's own jest", () => {
    const root = projectWithJest('28.1.3')
    roots.push(root)
    expect(jestVersion(root)).toBe('28.1.3')
    // A directory without a jest of its own: the jest fluxlab itself resolves (this repo's).
    expect(jestVersion(tmpdir())).toBe(pkg.devDependencies.jest)
  })

  test('the jest reporter (which the preset adds) warns once at startup about a jest outside the range', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const old = projectWithJest('28.1.3')
    const current = projectWithJest('30.5.2')
    roots.push(old, current)
    new FluxlabJestReporter({ rootDir: old })
    expect(warn).toHaveBeenCalledTimes(1)
    expect(String(warn.mock.calls[0][0])).toContain(`jest 28.1.3 is older than the tested range (${JEST_RANGE})`)
    new FluxlabJestReporter({ rootDir: current })
    expect(warn).toHaveBeenCalledTimes(1)
  })
})
