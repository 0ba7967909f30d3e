import type {} from 'fluxlab/vitest'
// Type test: a vitest-only project (no jest types) sees fluxlab's matchers.
import { expect, test } from 'vitest'
import { Rubric, scenario } from 'fluxlab'

test('types', async () => {
  const s = await scenario('types')
  const out = await s.run(async () => 'hi')
  const text: string = out.text
  const result: string = out.result
  expect(out).toReplayFaithfully()
  expect(out).toReplayFaithfully({ strict: true })
  expect(out).not.toReplayFaithfully()
  await expect(Promise.resolve(out)).resolves.toReplayFaithfully()
  expect(out).toCall(['read', 'bash'], { mode: 'superset' })
  expect(out).toCallWith('read', { path: expect.stringContaining('ci.log') })
  expect(out).toNeverCall('write')
  expect(out).not.toNeverCall(/^delete_/)
  expect(out).toHaveTextContaining(/root cause/i)
  expect(out).toCostUnder(0.05, { pricing: { 'my-model': { input: 0.15, output: 0.6 } } })
  expect(out).toMatchTraceSnapshot()
  expect(out).toBeHermetic()
  await expect(Promise.resolve(out)).resolves.toNeverCall('write')
  await expect(out).toPassJudge('the answer cites the refund policy', Rubric.model('anthropic/claude-haiku-4-5'))
  // @ts-expect-error a rubric is required: there is no default judge model
  await expect(out).toPassJudge('x')
  // @ts-expect-error a rubric is a Rubric, not a model id string
  await expect(out).toPassJudge('x', 'anthropic/claude-haiku-4-5')
  const cf = await s.injectAt(3, { error: 'disk full' }).run(async () => 'hi')
  expect(cf).toDivergeAt('model#2')
  expect(cf).toBeCompensatedWith('notify.send')
  expect(cf).toBeHermetic()
  expect(await s.crashMatrix('./agent.mjs')).toResumeWithoutReexecution()
  // @ts-expect-error a tool name is a string
  expect(cf).toBeCompensatedWith(/notify/)
  // @ts-expect-error mode must be one of strict | unordered | subset | superset
  expect(out).toCall(['read'], { mode: 'loose' })
  // @ts-expect-error the budget is a number of dollars
  expect(out).toCostUnder('5 cents')
  // @ts-expect-error strict must be a boolean
  expect(out).toReplayFaithfully({ strict: 'yes' })
  void text
  void result
})
