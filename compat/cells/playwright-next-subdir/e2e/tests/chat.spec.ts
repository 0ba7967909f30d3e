import { test, expect } from '@playwright/test'

const CAPITALS = { UK: 'London', France: 'Paris', Japan: 'Tokyo' }

// The chat page streams the answer of GET /api/chat (server-sent events, one per token): the route asks the model,
// calls the get_capital tool over HTTP, and asks the model again with its result.
for (const [country, capital] of Object.entries(CAPITALS)) {
  test(`answers the capital of ${country}, streamed token by token`, async ({ page }) => {
    await page.goto('/')
    await page.getByLabel('question').fill(`What is the capital of ${country}? Use the tool.`)
    await page.getByRole('button', { name: 'Ask' }).click()
    const answer = page.locator('#answer')
    await expect(answer).toHaveAttribute('data-done', 'yes')
    await expect(answer).toContainText(capital)
  })
}

test('shows the page without asking anything', async ({ page }) => {
  await page.goto('/')
  await expect(page.getByRole('heading')).toHaveText('Capital chat')
})
