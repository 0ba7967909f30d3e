// The layers of src/ (SPEC §10, docs/architecture.md): imports only point down, form no circles, and tie no two folders.
// Checked by test/architecture/layers.test.ts in `npm test`.
const entry = '^src/(cli|reporter|plugin)/|^src/(vitest|jest|playwright)\\.ts$'
/** The files at the top of src/ that code in a folder may import: they import no folder but src/secrets. */
const topLeaves = '^src/(errors|version)\\.ts$'
const layers = [
  { name: 'entry', path: entry },
  { name: 'assertions', path: '^src/matchers/|^src/index\\.ts$' },
  { name: 'scenario', path: '^src/(scenario|judge|durable)/' },
  { name: 'support', path: '^src/(golden|tools|context)/' },
  { name: 'tape', path: '^src/cassette/' },
  { name: 'leaves', path: `^src/(sources|providers|pricing|secrets|runners|store)/|${topLeaves}` },
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
      name: 'no-two-way-tie',
      comment: 'Two folders of src/ never import each other, nor close a longer circle of folders: a tie says one of them holds a module that belongs to the other (issue 25).',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { path: '^src/', circular: true },
    },
    // @note the folder scope sees a file at the top of src/ as part of the folder src, never tied to a folder in it;
    // these two keep such files out of ties: only the leaves among them are imported from a folder, and those import none.
    {
      name: 'no-two-way-tie-with-a-top-file',
      comment: 'Code in a folder of src/ imports no file at the top of src/ but the leaves (errors, version): the entry files and the barrel import folders, so an import back would tie them (issue 25).',
      severity: 'error',
      from: { path: '^src/[^/]+/' },
      to: { path: '^src/[^/]+\\.ts$', pathNot: topLeaves },
    },
    {
      name: 'no-two-way-tie-from-a-top-leaf',
      comment: 'The leaf files at the top of src/ import no folder of src/ but src/secrets, which imports nothing: every folder may import them (issue 25).',
      severity: 'error',
      from: { path: topLeaves },
      to: { path: '^src/[^/]+/', pathNot: '^src/secrets/' },
    },
    {
      name: 'secrets-import-nothing',
      comment: 'src/secrets imports nothing else of src/: the error messages redact through it without pulling in the cassette code, and nothing it imports can tie it to a file that imports it.',
      severity: 'error',
      from: { path: '^src/secrets/' },
      to: { path: '^src/', pathNot: '^src/secrets/' },
    },
    {
      name: 'store-imports-nothing',
      comment: 'src/store (the fixture store port and its node:fs and in-memory implementations) imports nothing else of src/: it keeps bytes, src/cassette parses them (issue 40).',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: '^src/', pathNot: '^src/store/' },
    },
    {
      name: 'reporter-not-cli',
      comment: 'The run summary reporters do not import the CLI: both read fixtures through src/cassette.',
      severity: 'error',
      from: { path: '^src/reporter/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'only-sources-import-msw',
      comment: 'Only src/sources knows msw exists (SPEC §10).',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/sources/' },
      to: { path: 'node_modules/(msw|@mswjs)/' },
    },
    {
      name: 'core-never-imports-a-runner',
      comment: 'Below the entry layer nothing imports vitest, jest or expect (STYLE "Layout shows the architecture").',
      severity: 'error',
      from: { path: '^src/', pathNot: `${entry}|\\.test\\.ts$|/utils/test-` },
      to: { path: 'node_modules/(vitest|@vitest|jest|@jest|expect|@playwright|playwright)/', dependencyTypesNot: ['type-only'] },
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
