import { defineConfig } from 'vitest/config'
import { fluxlab } from 'fluxlab/vitest' // fluxlab

export default defineConfig({
  plugins: [fluxlab({ scenarios: 'per-test' })], // fluxlab
  test: { include: ['test/**/*.test.ts'], testTimeout: 60_000 },
})
