import { defineConfig } from 'vitest/config'
import { fluxlab } from 'fluxlab/vitest' // fluxlab

// Explicit mode: fluxlab intercepts only inside `scenario().run()`. Only this cell's own test: the shared ones build
// their client at import and gate on the key, which is whole-suite mode's ground.
export default defineConfig({
  plugins: [fluxlab()], // fluxlab
  test: { include: ['test/app-msw-explicit.test.ts'], testTimeout: 20_000 },
})
