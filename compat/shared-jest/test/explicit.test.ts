// An explicit scenario() inside a whole-suite test: it knows its test (the re-record command names it),
// records once, then replays.
import { scenario } from 'fluxlab'
import { ask } from '../src/agent'

const describeIfKey = process.env.OPENAI_API_KEY ? describe : describe.skip

describeIfKey('explicit scenario', () => {
  it('answers Italy inside scenario().run()', async () => {
    const s = await scenario('explicit-italy')
    const out = await s.run(() => ask('What is the capital of Italy? Use the tool, then answer.'))
    expect(out.result).toContain('Rome')
    expect(out.mode).toBe(process.env.CI ? 'replay' : 'record')
    expect(out.commands?.rerecord).toContain("npx jest test/explicit.test.ts -t '^explicit scenario answers Italy inside scenario")
    expect(out).toReplayFaithfully()
  })
})
