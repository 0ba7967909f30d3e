import { describe, expect, test } from 'vitest'
import { handoffOf, settingsFrom } from './handoff.js'
import { runSettings } from './run.js'

describe('a handed-off run', () => {
  test('keeps its normalize rules: built-ins, literal and RegExp patterns, through JSON', () => {
    const settings = runSettings({ normalize: ['iso-dates', { pattern: 'build #', replace: 'build ' }, { pattern: /run-(\d+)/g, replace: 'run-<n>' }] }, false)
    const handoff = JSON.parse(
      JSON.stringify(handoffOf({ ...settings, name: 'n', dir: '/d', mode: 'replay', command: (env) => env }, { seq: 0, model: 0, tool: 0 })),
    )
    const taken = settingsFrom(handoff).settings.normalize
    expect(taken.marker).toMatch(/^v1:[0-9a-f]{8}$/)
    expect(taken.marker).toBe(settings.normalize.marker)
    expect(taken.config).toEqual(settings.normalize.config)
  })
})
