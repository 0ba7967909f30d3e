import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { checkVitestVersion, VITEST_RANGE } from './vitest-version.js'

describe('the vitest version check', () => {
  test('the checked range is the peer range in package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { peerDependencies: { vitest: string } }
    expect(VITEST_RANGE).toBe(pkg.peerDependencies.vitest)
  })

  test.each(['3.2.0', '3.2.7', '4.0.0', '4.0.18', '4.1.12', '5.0.0', '5.1.2', '4.1.0-beta.1'])('%s is in the tested range', (v) => {
    expect(checkVitestVersion(v)).toEqual({})
  })

  test.each(['3.1.3', '3.0.9', '2.1.9', '1.6.0'])('%s is refused with the version found and the range', (v) => {
    const { error } = checkVitestVersion(v)
    expect(error?.code).toBe('FLUX_BAD_CONFIG')
    expect(error?.message).toContain(`vitest ${v}`)
    expect(error?.message).toContain(VITEST_RANGE)
    expect(error?.message).toContain('npm install -D vitest@')
  })

  test('a newer major is a warning naming the range', () => {
    expect(checkVitestVersion('6.0.0')).toEqual({ warning: expect.stringContaining(`vitest 6.0.0 is newer than the tested range (${VITEST_RANGE})`) })
  })
})
