// The app wraps `fetch` itself when the test file loads, after fluxlab's setup file and before any run: fluxlab's
// patch goes over the wrapper at s.run(), and a request's live copy must go through it as the request would have.
import { scenario } from 'fluxlab'
import { afterAll, expect, test } from 'vitest'
import { answer, flags, GREETING } from '../../src/app'
import { wrapFetch } from '../wrapped-fetch'

const app = wrapFetch()
afterAll(() => app.restore())

test('inside a scenario the wrapper answers the flags, and the model calls and the geo tool go through it once each', async () => {
  const from = app.seen.length
  const out = await (await scenario('wrapped-fetch')).run(async () => ({ flags: await flags(), answer: await answer('Ada') }))
  expect(out.result).toEqual({ flags: { tools: true }, answer: GREETING.answer })
  // Recording, the wrapper is beneath fluxlab's patch: it sees each live copy once; replaying, the tape answers above it.
  const live = ['GET flags.app.test', 'POST /v1/chat/completions', 'GET /geo/capital', 'POST /v1/chat/completions']
  expect(app.seen.slice(from)).toEqual(out.mode === 'record' ? live : [])
})

test('outside scenarios, after a run, the wrapper still answers', async () => {
  expect(await flags()).toEqual({ tools: true })
})
