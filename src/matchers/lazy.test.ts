import { afterEach, beforeEach, expect, test } from 'vitest'
import { state } from '../context/state.js'
import { isFluxError } from '../errors.js'
import { matchers } from './index.js'
import { lazyMatchers, provideMatchers } from './lazy.js'
import { capitalsOutcome } from './utils/test-outcome.js'

let saved: typeof state.matchers
beforeEach(() => {
  saved = state.matchers
  state.matchers = undefined
})
afterEach(() => {
  state.matchers = saved
})

const ctx = { equals: (a: unknown, b: unknown) => Object.is(a, b) }
type Stand = (this: unknown, ...args: unknown[]) => { pass: boolean; message: () => string }

test('there is a stand-in for every matcher fluxlab registers, under its own name', () => {
  const stand = lazyMatchers(() => matchers)
  expect(Object.keys(stand).sort()).toEqual(Object.keys(matchers).sort())
  for (const [name, fn] of Object.entries(stand)) expect(fn.name).toBe(name)
})

test('a stand-in runs the matcher code fluxlab handed over, and loads nothing itself', () => {
  let loads = 0
  const stand = lazyMatchers(() => {
    loads++
    return matchers
  })
  provideMatchers(matchers)
  const out = capitalsOutcome()
  const r = (stand.toNeverCall as unknown as Stand).call(ctx, out, 'delete_file')
  expect(r.pass).toBe(true)
  expect((stand.toNeverCall as unknown as Stand).call(ctx, out, 'get_capital').pass).toBe(false)
  expect(loads).toBe(0)
})

test('where nothing handed the code over, the first call loads it once, and the later calls reuse it', () => {
  let loads = 0
  const stand = lazyMatchers(() => {
    loads++
    return matchers
  })
  const out = capitalsOutcome()
  ;(stand.toNeverCall as unknown as Stand).call(ctx, out, 'delete_file')
  ;(stand.toCall as unknown as Stand).call(ctx, out, ['get_capital'])
  expect(loads).toBe(1)
})

test('matcher code that cannot be loaded is a FLUX_BAD_CONFIG error that names the matcher and the fix', () => {
  const stand = lazyMatchers(() => {
    throw new Error('require() of ES Module not supported')
  })
  let thrown: unknown
  try {
    ;(stand.toNeverCall as unknown as Stand).call(ctx, {}, 'x')
  } catch (e) {
    thrown = e
  }
  expect(isFluxError(thrown, 'FLUX_BAD_CONFIG')).toBe(true)
  expect((thrown as Error).message).toMatch(/`toNeverCall`.*require\(\) of ES Module not supported.*import \{ scenario \} from 'fluxlab'/s)
})
