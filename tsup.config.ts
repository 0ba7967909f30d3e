import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { transform } from 'sucrase'
import { defineConfig } from 'tsup'

/**
 * The CommonJS build of the jest setup loads the whole-suite engine and the matcher code on first use, through
 * jest's own `require` (src/plugin/jest-load-cjs.ts); the ES module build imports them (src/plugin/jest-load.ts).
 */
const jestLoadCjs = {
  name: 'fluxlab-jest-load-cjs',
  setup(build: {
    initialOptions: { define?: Record<string, string> }
    onResolve: (o: { filter: RegExp }, f: (a: { path: string }) => { path: string; external?: boolean }) => void
  }) {
    // @note tsup builds its CommonJS output as split ES modules and converts them after, so esbuild's own format
    // is `esm` in both builds: the format tsup is building comes through `esbuildOptions` below.
    if (build.initialOptions.define?.FLUXLAB_BUILD_FORMAT !== '"cjs"') return
    build.onResolve({ filter: /\/jest-load\.js$/ }, () => ({ path: resolve('src/plugin/jest-load-cjs.ts') }))
    build.onResolve({ filter: /^\.\/(jest-engine|matchers)\.cjs$/ }, (a) => ({ path: a.path, external: true }))
  },
}

/**
 * The CommonJS build as Node runs the ES module build: `import`/`export` turned into `require`/`exports`, nothing else.
 * @note tsup turns its split ES module chunks into CommonJS with sucrase's `imports` transform and sucrase's defaults,
 * which also rewrite every `?.`, `??` and class field into helper calls (`_optionalChain([a, 'access', _1 => _1.b])`,
 * `__init` methods): more code for Node to compile in each jest and Playwright process, and a closure per access on
 * every call (the replay path included). This plugin keeps each chunk as it was before tsup's conversion (user plugins
 * run first) and, once the build is written, converts it again with the ES syntax left as it is. Node 20 runs it as
 * written (`engines`).
 */
function cjsKeepSyntax() {
  const before = new Map<string, string>()
  return {
    name: 'fluxlab-cjs-keep-syntax',
    renderChunk(this: { format: string; splitting?: boolean }, code: string, info: { type: string; path: string }) {
      if (this.format === 'cjs' && this.splitting && info.type === 'chunk' && /\.(js|cjs)$/.test(info.path)) before.set(info.path, code)
    },
    buildEnd() {
      for (const [path, code] of before) writeFileSync(path, transform(code, { filePath: path, transforms: ['imports'], disableESTransforms: true }).code)
    },
  }
}

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    jest: 'src/jest.ts',
    matchers: 'src/matchers/index.ts',
    // @note SPEC §1: the vitest entries are used as ESM; they share chunks with the core so one module instance serves both.
    vitest: 'src/vitest.ts',
    // @note the vitest setup file itself is built as one module by scripts/post-build.mjs; these are what it loads on
    // first use (the whole-suite engine is `jest-engine` below).
    'setup-facts': 'src/reporter/facts.ts',
    'setup-judge': 'src/judge/index.ts',
    'setup-file-record': 'src/context/file-record.ts',
    // Issue 38 item 4: the gate around a global setup, in the runner's main process: vitest's two global setup files
    // (src/vitest.ts puts them around the project's own), and jest's `withFluxlab` (jest-config.cjs).
    'vitest-global-setup': 'src/plugin/vitest-global-setup.ts',
    'vitest-global-setup-end': 'src/plugin/vitest-global-setup-end.ts',
    'gate-keys': 'src/context/gate-keys.ts',
    'jest-reporter': 'src/reporter/jest-reporter.ts',
    // Playwright Test as the third runner (its `test` and `expect`; the app server runs under `fluxlab serve`).
    playwright: 'src/playwright.ts',
    'playwright-reporter': 'src/reporter/playwright-reporter.ts',
    // The `fluxlab` bin (its `#!/usr/bin/env node` line is kept by the build) and the preload it injects
    // into the programs it records or replays (NODE_OPTIONS=--import, so ESM).
    cli: 'src/cli/index.ts',
    preload: 'src/cli/preload.ts',
    // The holder of a child started with execSync and the like inside a run (src/scenario/tree.ts).
    holder: 'src/cli/holder.ts',
    // The child process of a crash-cut test (Scenario.crashAt / crashMatrix).
    'durable-child': 'src/durable/child.ts',
    // The whole-suite engine as the CommonJS jest setup loads it on first use (src/plugin/jest-load-cjs.ts).
    'jest-engine': 'src/scenario/per-test.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  target: 'node20',
  splitting: true,
  sourcemap: false,
  // @note the CJS build (jest) must not contain `import.meta`: shims turn import.meta.url into the chunk's file URL.
  shims: true,
  external: ['vitest', 'jest', '@jest/globals', 'expect', 'vite', '@playwright/test'],
  esbuildPlugins: [jestLoadCjs],
  plugins: [cjsKeepSyntax()],
  esbuildOptions(options, { format }) {
    options.define = { ...options.define, FLUXLAB_BUILD_FORMAT: JSON.stringify(format) }
  },
})
