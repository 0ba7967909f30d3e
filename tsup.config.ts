import { defineConfig } from 'tsup'

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    jest: 'src/jest.ts',
    matchers: 'src/matchers/index.ts',
    // @note SPEC §1: the vitest entries are used as ESM; they share chunks with the core so one module instance serves both.
    vitest: 'src/vitest.ts',
    'vitest-setup': 'src/plugin/vitest-setup.ts',
    'jest-reporter': 'src/reporter/jest-reporter.ts',
    // The `fluxlab` bin (its `#!/usr/bin/env node` line is kept by the build) and the preload it injects
    // into the programs it records or replays (NODE_OPTIONS=--import, so ESM).
    cli: 'src/cli/index.ts',
    preload: 'src/cli/preload.ts',
    // The child process of a crash-cut test (Scenario.crashAt / crashMatrix).
    'durable-child': 'src/durable/child.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  target: 'node20',
  splitting: true,
  sourcemap: false,
  // @note the CJS build (jest) must not contain `import.meta`: shims turn import.meta.url into the chunk's file URL.
  shims: true,
  external: ['vitest', 'jest', '@jest/globals', 'expect', 'vite'],
})
