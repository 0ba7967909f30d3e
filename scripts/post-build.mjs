// After tsup: the vitest setup file as one module, and the declarations tsup cannot write.
import { readFileSync, writeFileSync } from 'node:fs'
import { build } from 'esbuild'

// @note issue 14: vitest runs each test file in a fresh process, which loads the setup file and everything it
// imports again. From tsup's split build it was nine modules (about 9 ms of a file's setup); as one module, about 5.
// What it imports on first use stays a separate load, of an entry tsup built (tsup.config.ts): each dynamic import
// of the setup's sources is mapped here, and any other is refused, so nothing heavy can be inlined by mistake.
// The modules it inlines are copies of ones the other entries share, as the CommonJS build's are: their state is
// kept on globalThis (src/context/state.ts), so both copies see one state.
const LATE = {
  '../scenario/per-test.js': './jest-engine.js',
  '../reporter/facts.js': './setup-facts.js',
  '../judge/index.js': './setup-judge.js',
  './file-record.js': './setup-file-record.js',
}
await build({
  entryPoints: ['src/plugin/vitest-setup.ts'],
  outfile: 'dist/vitest-setup.js',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
  plugins: [
    {
      name: 'fluxlab-setup-late-imports',
      setup(b) {
        b.onResolve({ filter: /.*/ }, (a) => {
          if (a.kind !== 'dynamic-import') return undefined
          const to = LATE[a.path]
          if (to) return { path: to, external: true }
          return { errors: [{ text: `the vitest setup file imports ${a.path} on first use: give it a tsup entry (tsup.config.ts) and map it in LATE (scripts/post-build.mjs)` }] }
        })
      },
    },
  ],
})
writeFileSync('dist/vitest-setup.d.ts', 'export {}\n')

// Point each runner entry's declarations at its matcher augmentation. tsup's
// declaration bundler drops triple-slash references, so they are added here.
const refs = {
  'dist/vitest.d.ts': '../types/vitest.d.ts',
  'dist/vitest-setup.d.ts': '../types/vitest.d.ts',
  'dist/jest.d.ts': '../types/jest.d.ts',
  'dist/jest.d.cts': '../types/jest.d.ts',
}
for (const [file, ref] of Object.entries(refs)) {
  const text = readFileSync(file, 'utf8')
  const line = `/// <reference path="${ref}" />\n`
  if (!text.startsWith(line)) writeFileSync(file, line + text)
}
