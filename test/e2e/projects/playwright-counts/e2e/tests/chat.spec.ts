import { test, expect } from 'fluxlab/playwright'

const ask = async (page: import('fluxlab/playwright').Page, country: string) => {
  await page.goto('/')
  await page.getByLabel('question').fill(`What is the capital of ${country}? Use the tool.`)
  await page.getByRole('button', { name: 'Ask' }).click()
}

test('answers the capital of UK', async ({ page }) => {
  await ask(page, 'UK')
  await expect(page.locator('#answer')).toContainText('London')
})

// Flaky on purpose under FLAKY=1: its first attempt fails after the answer showed, its retry passes.
test('answers the capital of France', async ({ page }, info) => {
  await ask(page, 'France')
  await expect(page.locator('#answer')).toContainText('Paris')
  if (process.env.FLAKY && info.retry === 0) throw new Error('flaky on purpose: the first attempt fails')
})
