import { fluxlab } from 'fluxlab/vitest'
import { defineConfig } from 'vitest/config'

// The same test file in two projects: each project gets its own fixtures.
export default defineConfig({
  plugins: [fluxlab()],
  test: {
    setupFiles: ['./user-setup.ts'],
    testTimeout: 20_000,
    projects: [
      { extends: true, test: { name: 'alpha', include: ['capital.test.ts'] } },
      { extends: true, test: { name: 'beta', include: ['capital.test.ts'] } },
    ],
  },
})
