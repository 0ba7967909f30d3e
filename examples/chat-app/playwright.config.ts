import { defineConfig } from '@playwright/test'

const PORT = Number(process.env.PORT ?? 3210)

// The app's Playwright config. Its fluxlab lines: the webServer's command (the server runs under `fluxlab serve`, so
// what it does for each test goes on that test's tape; tests import `test` and `expect` from fluxlab/playwright), and
// the run summary reporter.
export default defineConfig({
  testDir: 'tests',
  fullyParallel: true,
  workers: 2,
  reporter: [['list'], ['json', { outputFile: process.env.PW_JSON ?? 'test-results/report.json' }], ['fluxlab/playwright-reporter']], // fluxlab
  globalSetup: './browser-setup.ts',
  use: { baseURL: `http://127.0.0.1:${PORT}` },
  webServer: {
    command: 'npx fluxlab serve -- node server.mjs', // fluxlab
    url: `http://127.0.0.1:${PORT}/health`,
    env: { PORT: String(PORT) },
    reuseExistingServer: false,
    gracefulShutdown: { signal: 'SIGTERM', timeout: 5000 },
    stdout: 'pipe',
  },
})
