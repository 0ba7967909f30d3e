import { defineConfig } from '@playwright/test'
import { describe, expect, test } from 'vitest'
import { withFluxlab } from './playwright.js'

describe('withFluxlab', () => {
  test("wraps the user's webServer command in fluxlab serve and stops it with SIGTERM, keeping every other field", () => {
    // this fluxlab's CLI, started by this node (no npx lookup at every run)
    const cli = `${process.execPath} ${new URL('./cli.cjs', import.meta.url).pathname}`
    expect(withFluxlab({ command: 'npm run start', url: 'http://127.0.0.1:3000', reuseExistingServer: true })).toEqual({
      command: `${cli} serve --ready http://127.0.0.1:3000 -- npm run start`,
      url: 'http://127.0.0.1:3000',
      reuseExistingServer: true,
      gracefulShutdown: { signal: 'SIGTERM', timeout: 5000 },
      wait: { stdout: /^\[fluxlab\] serve: the app server answers at /m },
      env: { FLUX_PLAYWRIGHT_DIR: '' },
    })
    expect(withFluxlab({ command: 'next start', gracefulShutdown: { signal: 'SIGINT', timeout: 100 } }, { name: 'web' })).toEqual({
      command: `${cli} serve --name web -- next start`,
      gracefulShutdown: { signal: 'SIGINT', timeout: 100 },
      env: { FLUX_PLAYWRIGHT_DIR: '' },
    })
  })

  test("runs serve in the config's directory and the server in the entry's cwd, and gives the tests and serve one root", () => {
    const before = process.env.FLUX_PLAYWRIGHT_DIR
    try {
      const entry = withFluxlab({ command: 'node server.mjs', port: 3000, cwd: '..', env: { PORT: '3000' } }, { dir: 'e2e/recordings' })
      // no `cwd`: Playwright starts the command in the config's directory, where the tests' root is
      expect(entry).not.toHaveProperty('cwd')
      expect(entry.command).toMatch(/ serve --cwd \.\. --ready 3000 -- node server\.mjs$/)
      expect(entry.env).toEqual({ PORT: '3000', FLUX_PLAYWRIGHT_DIR: 'e2e/recordings' })
      // the workers inherit the runner's environment, where the config is loaded
      expect(process.env.FLUX_PLAYWRIGHT_DIR).toBe('e2e/recordings')
    } finally {
      if (before === undefined) delete process.env.FLUX_PLAYWRIGHT_DIR
      else process.env.FLUX_PLAYWRIGHT_DIR = before
    }
  })

  test("has Playwright wait for serve's line when the entry's url or port answers, and serve check that url or port", () => {
    const line = '[fluxlab] serve: the app server answers at http://127.0.0.1:3000/health\n'
    const entry = withFluxlab({ command: 'node server.mjs', url: 'http://127.0.0.1:3000/health' })
    expect(entry.command).toMatch(/ serve --ready http:\/\/127\.0\.0\.1:3000\/health -- node server\.mjs$/)
    expect(entry.wait?.stdout?.test(`server: starting\n${line}`)).toBe(true)
    expect(entry.wait?.stdout?.test('server: listening on http://127.0.0.1:3000\n')).toBe(false)
    // no named group: Playwright would copy it into process.env
    expect(entry.wait?.stdout?.exec(line)?.groups).toBeUndefined()
    // a `port` entry is checked as Playwright checks it, by a connection to the port
    expect(withFluxlab({ command: 'node server.mjs', port: 3000 })).toMatchObject({
      command: expect.stringMatching(/ serve --ready 3000 -- /),
      port: 3000,
      wait: { stdout: entry.wait?.stdout },
    })
    // ignoreHTTPSErrors goes with an https url; a URL the shell would split is quoted
    expect(withFluxlab({ command: 'x', url: 'https://localhost:3000/?a=1&b=2', ignoreHTTPSErrors: true }).command).toMatch(
      / serve --ready 'https:\/\/localhost:3000\/\?a=1&b=2' --ignore-https-errors -- x$/,
    )
    // nothing to check: Playwright does not wait for such an entry either
    const bare = withFluxlab({ command: 'node worker.mjs' })
    expect(bare.command).toMatch(/ serve -- node worker\.mjs$/)
    expect(bare.wait).toBeUndefined()
  })

  test("keeps an entry's own wait (for its stdout or its stderr), and then has serve check nothing", () => {
    for (const wait of [{ stdout: /listening on (\d+)/ }, { stderr: /ready/ }]) {
      const entry = withFluxlab({ command: 'node server.mjs', url: 'http://127.0.0.1:3000', wait })
      expect(entry.wait).toBe(wait)
      expect(entry.command).not.toContain('--ready')
    }
    // an empty `wait` waits for nothing: serve's line is added to it
    expect(withFluxlab({ command: 'node server.mjs', url: 'http://127.0.0.1:3000', wait: {} }).wait?.stdout).toEqual(
      /^\[fluxlab\] serve: the app server answers at /m,
    )
  })

  test("keeps the entry's literal fields typed as Playwright's config takes them (compiled by npm run typecheck)", () => {
    const config = defineConfig({ webServer: withFluxlab({ command: 'npm run start', url: 'http://127.0.0.1:3000', stdout: 'pipe', stderr: 'pipe' }) })
    expect(config.webServer).toMatchObject({ stdout: 'pipe', stderr: 'pipe' })
  })
})
