import { fluxlab } from 'fluxlab/vitest'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  plugins: [fluxlab({ scenarios: 'per-test' })],
  test: { include: ['test/suite/**/*.test.ts'], testTimeout: 20_000 },
})
