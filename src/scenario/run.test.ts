import OpenAI from 'openai'
import { describe, expect, test } from 'vitest'
import { createRedactor } from '../cassette/redact.js'
import { isFluxError } from '../errors.js'
import { Run, runSettings } from './run.js'

describe('Run', () => {
  test('a bug inside interception fails the run as FLUX_INTERNAL with its stack, and the SDK does not retry it as a network error', async () => {
    const settings = runSettings({}, false)
    // A redactor that throws stands in for a bug of ours anywhere in the pipeline.
    const broken = {
      ...createRedactor(),
      url: (): string => {
        throw new TypeError('cannot read properties of undefined (reading "host")')
      },
    }
    const run = new Run({ name: 'weather', dir: '/nonexistent/weather', mode: 'record', settings: { ...settings, redactor: broken } })
    let attempts = 0
    const counted: typeof fetch = (input, init) => {
      attempts++
      return fetch(input, init)
    }
    const client = new OpenAI({ baseURL: 'http://127.0.0.1:9/v1', apiKey: 'sk-test', fetch: counted, maxRetries: 2 })
    const { failure } = await run.drive(() => client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }))

    expect(attempts).toBe(1)
    expect(String((failure?.error as Error)?.message)).not.toMatch(/connection error/i)
    expect(isFluxError(run.log.fatal, 'FLUX_INTERNAL')).toBe(true)
    // (the call has its place in the run before its canonical form is computed, so the bug is named at its step)
    expect(run.log.fatal?.message).toContain(
      'Failed to serve model#1 of scenario "weather": fluxlab hit an unexpected TypeError (cannot read properties of undefined (reading "host")). This is a bug in fluxlab, not a network error.',
    )
    expect(run.log.fatal?.message).toMatch(/\n {2}• at .*redactor|\n {2}• at /)
    expect((run.log.fatal as Error & { cause?: unknown }).cause).toBeInstanceOf(TypeError)
  })

  test('a live request that fails on the network reaches the client as a network error, not a fluxlab error', async () => {
    const run = new Run({
      name: 'weather',
      dir: '/nonexistent/weather',
      mode: 'record',
      settings: runSettings({}, false),
      live: () => Promise.reject(new TypeError('fetch failed')),
    })
    const { failure } = await run.drive(() => fetch('http://127.0.0.1:9/weather'))
    expect((failure?.error as Error | undefined)?.name).toBe('TypeError')
    expect(run.log.fatal).toBeUndefined()
  })
})
