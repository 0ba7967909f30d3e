import { defineConfig } from '@playwright/test'

const PORT = Number(process.env.PORT ?? 3210)

// The config lives in e2e/, the app at the project root: its webServer runs there (`cwd: '..'`).
export default defineConfig({
  testDir: 'tests',
  fullyParallel: true,
  workers: 2,
  reporter: [['list'], ['json', { outputFile: process.env.PW_JSON ?? 'report.json' }]],
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    // the browser this machine has (@sparticuz/chromium, unpacked by the test that runs this suite)
    launchOptions: { executablePath: process.env.CHROMIUM_PATH, args: JSON.parse(process.env.CHROMIUM_ARGS ?? '[]'), headless: true },
  },
  webServer: {
    command: 'node server.mjs',
    cwd: '..',
    url: `http://127.0.0.1:${PORT}/health`,
    env: { PORT: String(PORT) },
    reuseExistingServer: false,
    stdout: 'pipe',
  },
})
