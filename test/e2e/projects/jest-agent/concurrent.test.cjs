const { scenario } = require('fluxlab')
const { runAgent } = require('./agent.cjs')

const CAPITALS = { UK: 'London', France: 'Paris' }

for (const [country, capital] of Object.entries(CAPITALS))
  test.concurrent(`answers for ${country}`, async () => {
    const s = await scenario(`capital-${country.toLowerCase()}`)
    const out = await s.run(() => runAgent(`What is the capital of ${country}? Use the tool, then answer.`))
    expect(out).toReplayFaithfully()
    expect(out.result).toBe(`The capital of the ${country} is ${capital}.`)
  })
