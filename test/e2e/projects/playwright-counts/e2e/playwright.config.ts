import { defineConfig, type ReporterDescription } from '@playwright/test'
import { withFluxlab } from 'fluxlab/playwright'

const PORT = Number(process.env.PORT ?? 3211)
const reporter: ReporterDescription[] = [['list'], ['json', { outputFile: process.env.PW_JSON ?? 'report.json' }], ['fluxlab/playwright-reporter']]
// a shard's run also writes its blob, for `npx playwright merge-reports`
if (process.env.PW_BLOB) reporter.push(['blob', { outputDir: process.env.PW_BLOB }])

export default defineConfig({
  testDir: 'tests',
  fullyParallel: true,
  workers: 2,
  retries: 1,
  reporter,
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    // the browser this machine has (@sparticuz/chromium, unpacked by the test that runs this suite)
    launchOptions: { executablePath: process.env.CHROMIUM_PATH, args: JSON.parse(process.env.CHROMIUM_ARGS ?? '[]'), headless: true },
  },
  projects: [
    { name: 'desktop', use: { viewport: { width: 1280, height: 720 } } },
    { name: 'narrow', use: { viewport: { width: 390, height: 844 } } },
  ],
  webServer: withFluxlab({
    command: 'node server.mjs',
    cwd: '..',
    url: `http://127.0.0.1:${PORT}/health`,
    // the server asks the model once as it starts, outside every test: its own scenario, which each shard's server replays
    env: { PORT: String(PORT), WARM_UP: '1' },
    reuseExistingServer: false,
    stdout: 'pipe',
  }),
})
