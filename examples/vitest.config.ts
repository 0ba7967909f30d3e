import { fileURLToPath } from 'node:url'
import { fluxlab } from 'fluxlab/vitest'
import { defineConfig } from 'vitest/config'

// The examples run as a user's project would: the fluxlab plugin, fixtures in
// examples/scenarios/, committed.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [fluxlab({ dir: 'scenarios' })],
  test: { include: ['**/*.test.ts'] },
})
