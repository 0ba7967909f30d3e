import { fluxlab } from 'fluxlab/vitest'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  plugins: [fluxlab()],
  test: { setupFiles: ['./user-setup.ts'], include: ['**/*.test.ts'], testTimeout: 20_000 },
})
