import { relative } from 'node:path'
import { escapeRegExp } from '../secrets/rules.js'
import { shellQuote, spaced, type RunnerAdapter } from './adapter.js'

interface VitestWorker {
  filepath?: string
  current?: { fullTestName?: string }
  config?: { root?: string }
}

/** vitest: `-t` matches the full name (suites and title joined by spaces), anchored. */
export const vitestRunner: RunnerAdapter = {
  name: 'vitest',
  bin: 'npx vitest run',
  select: (name) => ` -t ${shellQuote(`^${escapeRegExp(spaced(name))}$`)}`,
  configNames: /^vite(st)?\.config\.[cm]?[jt]s$/,
  before: (test) => `${test.config ? ` --config ${shellQuote(test.config)}` : ''}${test.mode ? ` --mode ${shellQuote(test.mode)}` : ''}`,
  after: (test) => (test.project ? ` --project ${shellQuote(test.project)}` : ''),
  running() {
    const vw = (globalThis as { __vitest_worker__?: VitestWorker }).__vitest_worker__
    if (!vw?.filepath) return undefined
    return { runner: 'vitest', file: relative(vw.config?.root ?? process.cwd(), vw.filepath), name: vw.current?.fullTestName }
  },
  setupFix: "Add the plugin to vitest.config: `plugins: [fluxlab()]` (import { fluxlab } from 'fluxlab/vitest')",
}
