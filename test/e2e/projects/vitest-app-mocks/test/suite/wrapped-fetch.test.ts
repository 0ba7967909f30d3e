// Whole-suite mode: fluxlab intercepts from its setup file, so the app's own `fetch` wrapper, installed when the test
// file loads, is above fluxlab's patch; nock (network off) shares fluxlab's interceptor.
import nock from 'nock'
import { afterAll, expect, test } from 'vitest'
import { answer, flags, GREETING, me } from '../../src/app'
import { nockUsers } from '../nock-mocks'
import { wrapFetch } from '../wrapped-fetch'

const mocks = nockUsers()
const app = wrapFetch()
afterAll(() => {
  app.restore()
  nock.cleanAll()
})

test('the wrapper answers the flags, nock the users API and the geo tool, and the model answers', async () => {
  expect(await flags()).toEqual({ tools: true })
  expect(await me()).toEqual({ name: 'Ada' })
  expect(await answer('Ada')).toBe(GREETING.answer)
})

test('a test with no model call uses the wrapper', async () => {
  expect(await flags()).toEqual({ tools: true })
})

test('nock never saw a request it could not match', () => {
  expect(mocks.noMatch).toEqual([])
})
