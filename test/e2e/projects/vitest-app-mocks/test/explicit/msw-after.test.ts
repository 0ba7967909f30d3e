// The app's msw server starts inside the run, after fluxlab's interception, and keeps running after it.
import { scenario } from 'fluxlab'
import { afterAll, expect, test } from 'vitest'
import { GREETING, greet, me, meOverHttp } from '../../src/app'
import { mswUsers } from '../msw-mocks'

const app = mswUsers()
afterAll(() => app.server.close())

test('an app server started inside the run answers there, and the model call is fluxlab\'s', async () => {
  const out = await (await scenario('msw-listening-after')).run(async () => {
    app.listen()
    return greet()
  })
  expect(out.error).toBeUndefined()
  expect(out.result).toEqual(GREETING)
})

test('outside scenarios, after the run ended, the app server still answers', async () => {
  expect(await me()).toEqual({ name: 'Ada' })
  expect(await meOverHttp()).toEqual({ name: 'Ada' })
})

test('the app can stop and restart its server', async () => {
  app.server.close()
  app.listen()
  expect(await me()).toEqual({ name: 'Ada' })
  const again = await (await scenario('msw-restarted')).run(() => greet())
  expect(again.error).toBeUndefined()
  expect(again.result).toEqual(GREETING)
})

test('the app\'s strict onUnhandledRequest never fired', () => {
  expect(app.unhandled).toEqual([])
})
