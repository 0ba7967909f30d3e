import { defineConfig } from '@playwright/test'
import { withFluxlab } from 'fluxlab/playwright' // fluxlab

const PORT = Number(process.env.PORT ?? 3210)

// The app's Playwright config. Its fluxlab lines: the webServer runs under `fluxlab serve` (withFluxlab wraps its
// command, and has Playwright start the tests when serve sees the `url` answer), so what the server does for each test
// goes on that test's tape (the tests import `test` and `expect` from fluxlab/playwright), and the run summary reporter.
export default defineConfig({
  testDir: 'tests',
  fullyParallel: true,
  workers: 2,
  reporter: [['list'], ['json', { outputFile: process.env.PW_JSON ?? 'test-results/report.json' }], ['fluxlab/playwright-reporter']], // fluxlab
  globalSetup: './browser-setup.ts',
  use: { baseURL: `http://127.0.0.1:${PORT}` },
  webServer: withFluxlab({ // fluxlab
    command: 'node server.mjs',
    url: `http://127.0.0.1:${PORT}/health`,
    env: { PORT: String(PORT) },
    reuseExistingServer: false,
    stdout: 'pipe',
  }),
})
