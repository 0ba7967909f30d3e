// Types of `fluxlab/jest-preset` (jest-preset.cjs): the jest preset `preset: 'fluxlab'` loads.
declare const preset: {
  testEnvironment: string
  setupFilesAfterEnv: string[]
  reporters: string[]
  transform: Record<string, unknown>
  transformIgnorePatterns: string[]
  modulePathIgnorePatterns: string[]
  testLocationInResults: boolean
}
export = preset
