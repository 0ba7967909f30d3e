import { BaseSequencer, type TestSpecification } from 'vitest/node'
import { defineConfig } from 'vitest/config'
import { fluxlab } from 'fluxlab/vitest' // fluxlab

/** Test files in reverse path order, so the integration file runs after the unit files (e2e scaffolding). */
class ReversePathSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return [...files].sort((a, b) => (a.moduleId < b.moduleId ? 1 : a.moduleId > b.moduleId ? -1 : 0))
  }
}

export default defineConfig({
  plugins: [fluxlab({ scenarios: 'per-test' })], // fluxlab
  test: { include: ['src/**/*.test.ts'], testTimeout: 20_000, sequence: { sequencer: ReversePathSequencer } },
})
