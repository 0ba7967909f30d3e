// nock 14 (on @mswjs/interceptors, active from its import) with the network off: the app's scopes answer
// the users API and the geo tool; the model calls are fluxlab's, which nock would otherwise refuse.
import { scenario } from 'fluxlab'
import nock from 'nock'
import { afterAll, expect, test } from 'vitest'
import { GREETING, greet, me, meOverHttp } from '../../src/app'
import { nockUsers } from '../nock-mocks'

const app = nockUsers()
afterAll(() => nock.cleanAll())

test('inside a scenario nock answers the app\'s scopes and the model call is fluxlab\'s', async () => {
  const out = await (await scenario('nock-app')).run(() => greet())
  expect(out.error).toBeUndefined()
  expect(out.result).toEqual(GREETING)
})

test('outside scenarios, after a run, nock still answers', async () => {
  expect(await me()).toEqual({ name: 'Ada' })
  expect(await meOverHttp()).toEqual({ name: 'Ada' })
})

test('nock never saw a request it could not match', () => {
  expect(app.noMatch).toEqual([])
})
