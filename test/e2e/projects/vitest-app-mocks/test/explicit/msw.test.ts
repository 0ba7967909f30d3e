// The app's msw server listens before fluxlab's interception (beforeAll), as most suites do.
import { scenario } from 'fluxlab'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { GREETING, greet, me, meOverHttp } from '../../src/app'
import { mswUsers } from '../msw-mocks'

const app = mswUsers()
beforeAll(() => app.listen())
afterAll(() => app.server.close())

test('inside a scenario the app mocks answer and the model call is fluxlab\'s', async () => {
  const out = await (await scenario('msw-listening-first')).run(() => greet())
  expect(out.error).toBeUndefined()
  expect(out.result).toEqual(GREETING)
})

test('outside scenarios, after a run, the app mocks still answer', async () => {
  expect(await me()).toEqual({ name: 'Ada' })
  expect(await meOverHttp()).toEqual({ name: 'Ada' })
})

test('the app\'s strict onUnhandledRequest never fired', () => {
  expect(app.unhandled).toEqual([])
})
