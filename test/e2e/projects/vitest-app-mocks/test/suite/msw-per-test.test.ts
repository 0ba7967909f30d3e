// Whole-suite mode with a server started and stopped around every test (listen, close, listen again).
import { afterEach, beforeEach, expect, test } from 'vitest'
import { GREETING, greet, me } from '../../src/app'
import { mswUsers } from '../msw-mocks'

const app = mswUsers()
beforeEach(() => app.listen())
afterEach(() => {
  app.server.close()
  expect(app.unhandled).toEqual([])
})

test('first test greets', async () => {
  expect(await greet()).toEqual(GREETING)
})

test('second test, on a restarted server, greets', async () => {
  expect(await greet()).toEqual(GREETING)
})

test('third test reads the user only', async () => {
  expect(await me()).toEqual({ name: 'Ada' })
})
