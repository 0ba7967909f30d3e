import { describe, expect, test } from 'vitest'
import { untilAbort } from './until-abort.js'

describe('the replay of a call that never got an answer', () => {
  test('answers only when the client aborts, not before', async () => {
    const controller = new AbortController()
    let settled = false
    const answer = untilAbort(new Request('http://127.0.0.1:9/hold', { signal: controller.signal })).then((r) => ((settled = true), r))
    await new Promise((r) => setTimeout(r, 50))
    expect(settled).toBe(false)
    controller.abort()
    expect((await answer).type).toBe('error')
  })

  test('ends at once for a client that aborted already', async () => {
    expect((await untilAbort(new Request('http://127.0.0.1:9/hold', { signal: AbortSignal.abort() }))).type).toBe('error')
  })
})
