// nock 14 (network off) and the app's own `fetch` wrapper in one file: nock's interceptor runs from its import, so
// fluxlab's listener sits on it, and the wrapper, installed next, is above both.
import { scenario } from 'fluxlab'
import nock from 'nock'
import { afterAll, expect, test } from 'vitest'
import { flags, GREETING, greet, me } from '../../src/app'
import { nockUsers } from '../nock-mocks'
import { wrapFetch } from '../wrapped-fetch'

const mocks = nockUsers()
const app = wrapFetch()
afterAll(() => {
  app.restore()
  nock.cleanAll()
})

test('inside a scenario the wrapper answers the flags, nock its scopes, and the model calls are fluxlab\'s', async () => {
  const out = await (await scenario('wrapped-fetch-nock')).run(async () => ({ flags: await flags(), greeting: await greet() }))
  expect(out.result).toEqual({ flags: { tools: true }, greeting: GREETING })
})

test('outside scenarios the wrapper and nock still answer', async () => {
  expect(await flags()).toEqual({ tools: true })
  expect(await me()).toEqual({ name: 'Ada' })
})

test('nock never saw a request it could not match', () => {
  expect(mocks.noMatch).toEqual([])
})
