import { defineConfig } from '@playwright/test'
import { withFluxlab } from 'fluxlab/playwright'

const PORT = Number(process.env.PORT ?? 3220)

// The cell's app server is its `npm run serve` (a plain Express server, `next build && next start`, `next dev`),
// run under `fluxlab serve` by withFluxlab; two workers, fully parallel, against that one server.
export default defineConfig({
  testDir: 'tests',
  fullyParallel: true,
  workers: 2,
  // `next dev` compiles a route on its first request: the first answer can take a while on a busy machine.
  timeout: 90_000,
  expect: { timeout: 30_000 },
  reporter: [['list'], ['json', { outputFile: process.env.PW_JSON ?? 'test-results/report.json' }], ['fluxlab/playwright-reporter']],
  globalSetup: './browser-setup.ts',
  use: { baseURL: `http://127.0.0.1:${PORT}` },
  webServer: withFluxlab({
    command: 'npm run serve',
    url: `http://127.0.0.1:${PORT}/api/health`,
    env: { PORT: String(PORT) },
    reuseExistingServer: false,
    timeout: 180_000,
    stdout: 'pipe',
  }),
})
