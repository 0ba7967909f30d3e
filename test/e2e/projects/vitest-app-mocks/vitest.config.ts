import { fluxlab } from 'fluxlab/vitest'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  plugins: [fluxlab()],
  test: { include: ['test/explicit/**/*.test.ts'], testTimeout: 20_000 },
})
