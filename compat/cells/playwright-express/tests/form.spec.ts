import { test, expect } from './fixtures.js'

// A plain form post (no script): Express parses the body and answers with a page.
test('answers the capital of Italy from a form post', async ({ page, flux }) => {
  await page.goto('/form')
  await page.getByLabel('question').fill('What is the capital of Italy? Use the tool.')
  await page.getByRole('button', { name: 'Ask' }).click()
  await expect(page.locator('#answer')).toContainText('Rome')
  const outcome = await flux.outcome()
  expect(outcome).toCall(['get_capital'], { mode: 'superset' })
  if (flux.mode === 'replay') expect(outcome).toReplayFaithfully()
})
