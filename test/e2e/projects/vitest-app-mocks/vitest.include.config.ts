import { fluxlab } from 'fluxlab/vitest'
import { defineConfig } from 'vitest/config'

// Whole-suite mode for some files only: `include` leaves test/faked/ out, where the suite fakes the provider itself.
export default defineConfig({
  plugins: [fluxlab({ scenarios: 'per-test', include: ['test/covered/**'] })],
  test: { include: ['test/covered/**/*.test.ts', 'test/faked/**/*.test.ts'], testTimeout: 20_000 },
})
