import { escapeRegExp } from '../secrets/rules.js'
import { shellQuote, spaced, type RunnerAdapter } from './adapter.js'

/**
 * Playwright Test: `-g` is matched against the project, file and titles joined, so the titles end it;
 * `-c` names a config outside the working directory, `--project` the one project that failed (issue 39).
 */
export const playwrightRunner: RunnerAdapter = {
  name: 'playwright',
  bin: 'npx playwright test',
  select: (name) => ` -g ${shellQuote(`${escapeRegExp(spaced(name))}$`)}`,
  configNames: /^playwright\.config\.[cm]?[jt]s$/,
  before: (test) => (test.config ? ` -c ${shellQuote(test.config)}` : ''),
  after: (test) => (test.project ? ` --project ${shellQuote(test.project)}` : ''),
  setupFix: "Import `test` from 'fluxlab/playwright' in the spec file (was: '@playwright/test')",
}
