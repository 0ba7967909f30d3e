import { Rubric } from 'fluxlab'
import { test, expect } from './fixtures.js'

const CAPITALS = { UK: 'London', France: 'Paris', Japan: 'Tokyo', Italy: 'Rome' }

// A judge of our own (a model judge is `Rubric.model('openai/gpt-4.1-mini')`): its verdicts go on each test's tape.
const namesTheCapital = Rubric.fn(function namesTheCapital({ text, criterion }) {
  const capital = /names (\w+)/.exec(criterion)?.[1] ?? ''
  return { verdict: text.includes(capital) ? 'PASS' : 'FAIL', rationale: `looked for ${capital} in the answer` }
})

for (const [country, capital] of Object.entries(CAPITALS)) {
  test(`answers the capital of ${country}, streamed token by token`, async ({ page, flux }) => {
    await page.goto('/')
    await page.getByLabel('question').fill(`What is the capital of ${country}? Use the tool.`)
    await page.getByRole('button', { name: 'Ask' }).click()
    const answer = page.locator('#answer')
    await expect(answer).toHaveAttribute('data-done', 'yes')
    await expect(answer).toContainText(capital)
    const outcome = await flux.outcome()
    expect(outcome).toCall(['get_capital'], { mode: 'superset' })
    expect(outcome).toNeverCall('delete_everything')
    if (flux.mode === 'replay') expect(outcome).toReplayFaithfully()
    // the text the page shows is the server's last answer: graded once, then from the tape
    await expect(outcome).toPassJudge(`the answer names ${capital} as the capital of ${country}`, namesTheCapital)
    // the stream reached the page as recorded: one event per streamed token, at the pace they came
    for (const type of ['events', 'span', 'sent', 'ahead']) test.info().annotations.push({ type, description: (await answer.getAttribute(`data-${type}`)) ?? '' })
  })
}

test('shows the page without asking anything', async ({ page }) => {
  await page.goto('/')
  await expect(page.getByRole('heading')).toHaveText('Capital chat')
})
