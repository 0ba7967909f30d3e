import { test, expect } from '@playwright/test'

// The form posts to a server action (a POST with the `Next-Action` header), which asks the model and calls the tool.
test('answers the capital of Italy from a server action', async ({ page }) => {
  await page.goto('/action')
  await page.getByLabel('question').fill('What is the capital of Italy? Use the tool.')
  await page.getByRole('button', { name: 'Ask' }).click()
  await expect(page.locator('#answer')).toHaveAttribute('data-done', 'yes')
  await expect(page.locator('#answer')).toContainText('Rome')
})
