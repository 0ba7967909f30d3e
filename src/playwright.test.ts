import { defineConfig } from '@playwright/test'
import { describe, expect, test } from 'vitest'
import { withFluxlab } from './playwright.js'

describe('withFluxlab', () => {
  test("wraps the user's webServer command in fluxlab serve and stops it with SIGTERM, keeping every other field", () => {
    // this fluxlab's CLI, started by this node (no npx lookup at every run)
    const cli = `${process.execPath} ${new URL('./cli.js', import.meta.url).pathname}`
    expect(withFluxlab({ command: 'npm run start', url: 'http://127.0.0.1:3000', reuseExistingServer: true })).toEqual({
      command: `${cli} serve -- npm run start`,
      url: 'http://127.0.0.1:3000',
      reuseExistingServer: true,
      gracefulShutdown: { signal: 'SIGTERM', timeout: 5000 },
    })
    expect(withFluxlab({ command: 'next start', gracefulShutdown: { signal: 'SIGINT', timeout: 100 } }, { name: 'web' })).toEqual({
      command: `${cli} serve --name web -- next start`,
      gracefulShutdown: { signal: 'SIGINT', timeout: 100 },
    })
  })

  test("keeps the entry's literal fields typed as Playwright's config takes them (compiled by npm run typecheck)", () => {
    const config = defineConfig({ webServer: withFluxlab({ command: 'npm run start', url: 'http://127.0.0.1:3000', stdout: 'pipe', stderr: 'pipe' }) })
    expect(config.webServer).toMatchObject({ stdout: 'pipe', stderr: 'pipe' })
  })
})
