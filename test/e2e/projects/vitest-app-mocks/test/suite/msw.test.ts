// Whole-suite mode: fluxlab intercepts from its setup file; the app's server listens later, in beforeAll.
// The test bodies know nothing of fluxlab.
import { afterAll, beforeAll, expect, test } from 'vitest'
import { GREETING, greet, me, meOverHttp } from '../../src/app'
import { mswUsers } from '../msw-mocks'

const app = mswUsers()
beforeAll(() => app.listen())
afterAll(() => app.server.close())

test('greets with the app mocks and the model', async () => {
  expect(await greet()).toEqual(GREETING)
})

test('a test with no model call uses the app mocks', async () => {
  expect(await me()).toEqual({ name: 'Ada' })
  expect(await meOverHttp()).toEqual({ name: 'Ada' })
})

test('the app\'s strict onUnhandledRequest never fired', () => {
  expect(app.unhandled).toEqual([])
})
