import { test, expect } from '@playwright/test'

for (const [country, capital] of Object.entries({ UK: 'London', France: 'Paris' })) {
  test(`answers the capital of ${country}`, async ({ page }) => {
    await page.goto('/')
    await page.getByLabel('question').fill(`What is the capital of ${country}? Use the tool.`)
    await page.getByRole('button', { name: 'Ask' }).click()
    await expect(page.locator('#answer')).toContainText(capital)
  })
}

test('shows the page without asking anything', async ({ page }) => {
  await page.goto('/')
  await expect(page.getByRole('heading')).toHaveText('Capital chat')
})
