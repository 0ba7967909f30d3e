// A file whole-suite mode covers, with a model call in a beforeAll: it goes on the file's own scenario.
import { beforeAll, expect, test } from 'vitest'
import { answer } from '../../src/app'

let said = ''
beforeAll(async () => {
  said = await answer('Ada')
})

test('the beforeAll had its answer', () => {
  expect(said).toBe('The capital of the UK is London.')
})
