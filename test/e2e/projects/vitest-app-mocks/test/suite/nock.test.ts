// Whole-suite mode with nock (network off) imported by the test file.
import nock from 'nock'
import { afterAll, expect, test } from 'vitest'
import { GREETING, greet, me, meOverHttp } from '../../src/app'
import { nockUsers } from '../nock-mocks'

const app = nockUsers()
afterAll(() => nock.cleanAll())

test('greets with nock\'s scopes and the model', async () => {
  expect(await greet()).toEqual(GREETING)
})

test('a test with no model call uses nock\'s scopes', async () => {
  expect(await me()).toEqual({ name: 'Ada' })
  expect(await meOverHttp()).toEqual({ name: 'Ada' })
})

test('nock never saw a request it could not match', () => {
  expect(app.noMatch).toEqual([])
})
