// The layers of src/ (SPEC §10, docs/architecture.md): imports only point down, and form no circles.
// Checked by test/architecture/layers.test.ts in `npm test`.
const layers = [
  { name: 'entry', path: '^src/(cli|reporter|plugin)/|^src/(vitest|vitest-setup|jest|jest-reporter|cli)\\.ts$' },
  { name: 'assertions', path: '^src/matchers/|^src/index\\.ts$' },
  { name: 'scenario', path: '^src/(scenario|judge|durable)/' },
  { name: 'support', path: '^src/(golden|tools|context)/' },
  { name: 'tape', path: '^src/cassette/' },
  { name: 'leaves', path: '^src/(interceptor|providers|pricing)/|^src/(errors|secrets|version|commands)\\.ts$' },
]

/** One rule per layer: nothing in it imports a layer above it. */
const upward = layers.slice(1).map((layer, i) => ({
  name: `no-upward-from-${layer.name}`,
  comment: `${layer.name} may not import ${layers.slice(0, i + 1).map((l) => l.name).join(', ')} (SPEC §10: imports point down the layers)`,
  severity: 'error',
  from: { path: layer.path },
  to: { path: layers.slice(0, i + 1).map((l) => `(${l.path})`).join('|') },
}))

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Imports form no circles (STYLE "Failure modes").',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...upward,
    {
      name: 'reporter-not-cli',
      comment: 'The run summary reporters do not import the CLI: both read fixtures through src/cassette.',
      severity: 'error',
      from: { path: '^src/reporter/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'only-interceptor-imports-msw',
      comment: 'Only src/interceptor knows msw exists (SPEC §10).',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/interceptor/' },
      to: { path: 'node_modules/(msw|@mswjs)/' },
    },
    {
      name: 'core-never-imports-a-runner',
      comment: 'Below the entry layer nothing imports vitest, jest or expect (STYLE "Layout shows the architecture").',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(cli|reporter|plugin)/|^src/(vitest|vitest-setup|jest|jest-reporter)\\.ts$|\\.test\\.ts$|/utils/test-' },
      to: { path: 'node_modules/(vitest|@vitest|jest|@jest|expect)/', dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$|/utils/test-|^src/providers/test-helpers\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
}
