import { defineConfig } from 'tsup'

export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      jest: 'src/jest.ts',
      matchers: 'src/matchers/index.ts',
      cli: 'src/cli/main.ts',
    },
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    target: 'node20',
    splitting: true,
    sourcemap: false,
    external: ['vitest', 'jest', '@jest/globals', 'expect', 'vite'],
  },
  {
    // @note SPEC §1: the vitest entry is ESM only.
    entry: { vitest: 'src/vitest.ts', 'vitest-setup': 'src/plugin/vitest-setup.ts' },
    format: ['esm'],
    dts: true,
    target: 'node20',
    splitting: true,
    external: ['vitest', 'vite', 'fluxlab'],
  },
])
