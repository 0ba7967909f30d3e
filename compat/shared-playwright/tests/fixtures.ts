// The browser this machine has (browser-setup.ts), over fluxlab's `test`: nothing about fluxlab is set here.
import chromium from '@sparticuz/chromium'
import { test as base } from 'fluxlab/playwright'

export { expect } from 'fluxlab/playwright'

export const test = base.extend({
  launchOptions: [
    async ({}, use) => {
      // @note without --single-process: with it the browser dies when the first test's context closes.
      const args = chromium.args.filter((a) => a !== '--single-process')
      await use({ executablePath: process.env.COMPAT_CHROMIUM ?? (await chromium.executablePath()), args, headless: true })
    },
    { scope: 'worker' },
  ],
})
