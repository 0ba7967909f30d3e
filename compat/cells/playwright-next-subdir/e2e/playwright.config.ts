import { defineConfig } from '@playwright/test'

const PORT = Number(process.env.PORT ?? 3230)

// The suite before fluxlab, as issue 39 found it: the config in e2e/, the Next.js app at the project root, where its
// webServer runs (`cwd: '..'`). The model vendor's address is the server's own: only its fetch wrapper knows the way.
export default defineConfig({
  testDir: 'tests',
  fullyParallel: true,
  workers: 2,
  timeout: 90_000,
  expect: { timeout: 30_000 },
  reporter: [['list'], ['json', { outputFile: process.env.PW_JSON ?? 'report.json' }]],
  globalSetup: './browser-setup.ts',
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    // the Chromium this machine has (browser-setup.ts unpacks it; the workers, started after it, read the path)
    // @note without --single-process: with it the browser dies when the first test's context closes.
    launchOptions: { executablePath: process.env.COMPAT_CHROMIUM, args: JSON.parse(process.env.COMPAT_CHROMIUM_ARGS ?? '[]'), headless: true },
  },
  webServer: {
    command: 'npm run serve',
    cwd: '..',
    url: `http://127.0.0.1:${PORT}/api/health`,
    env: { PORT: String(PORT), OPENAI_BASE_URL: 'http://api.openai.invalid/v1' },
    reuseExistingServer: false,
    timeout: 180_000,
    stdout: 'pipe',
  },
})
