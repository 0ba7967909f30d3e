#!/usr/bin/env node
// The release check (issue 15 item 4): `npm run check:release` runs 1 and 2 (package.json scripts), then this file (3).
//   1. publint: the package.json fields and files as published;
//   2. @arethetypeswrong/cli --pack: every export's types resolve under node10, node16 (CJS and ESM) and bundler.
//      One rule is ignored, for a reason: fluxlab/vitest and fluxlab/vitest-setup are ESM-only on purpose (vitest
//      loads its config and setup files as ESM, and vitest 4 and later are ESM-only), so `require()` of them
//      resolving to ESM (cjs-resolves-to-esm) is by design. Every other finding fails the check.
//   3. the packed tarball, installed in a fresh directory outside the repo next to vitest and jest: every
//      documented export (package.json `exports`) is imported from ESM, and required from CJS where it has a CJS
//      entry, and has the named exports the docs use.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const REPO = fileURLToPath(new URL('../', import.meta.url))
const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'))

/** What each export must provide: the names docs/ and the README use (ESM and CJS alike). */
const EXPECT = {
  '.': ['scenario', 'testOutcome'],
  './vitest': ['fluxlab'],
  './vitest-setup': [],
  './jest': [],
  './jest-preset': ['setupFilesAfterEnv', 'transform'],
  './jest-config': ['withFluxlab'],
  './jest-reporter': ['default'],
  './playwright': ['test', 'expect', 'withFluxlab'],
  './playwright-reporter': ['default'],
  './matchers': [],
  './package.json': ['name', 'version'],
}

const failures = []
function step(name, cmd, argv, opts = {}) {
  process.stdout.write(`release-check: ${name} … `)
  const r = spawnSync(cmd, argv, { cwd: REPO, encoding: 'utf8', ...opts })
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`
  console.log(r.status === 0 ? 'ok' : 'FAIL')
  if (r.status !== 0) failures.push(`${name} (\`${[cmd, ...argv].join(' ')}\`):\n${out.trim().split('\n').slice(-40).join('\n')}`)
  return out
}


const missing = Object.keys(pkg.exports).filter((k) => !(k in EXPECT))
if (missing.length) failures.push(`exports ${missing.join(', ')} have no entry in EXPECT (scripts/release-check.mjs): add what each must provide`)

const work = mkdtempSync(join(tmpdir(), 'fluxlab-release-'))
try {
  const packed = spawnSync('npm', ['pack', '--pack-destination', work, '--json'], { cwd: REPO, encoding: 'utf8' })
  if (packed.status !== 0) throw new Error(`npm pack failed:\n${packed.stderr}`)
  const [{ filename }] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('[')))
  const dev = pkg.devDependencies
  writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'release-probe', private: true, dependencies: { fluxlab: `file:./${filename}`, vitest: dev.vitest, jest: dev.jest, '@playwright/test': dev['@playwright/test'] } }, null, 2))
  step('install the packed tarball', 'npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: work })
  // Each export in its own process: the setup entries register hooks on the runner's globals, which exist only
  // inside a run, so those are loaded with stand-ins for beforeEach/afterEach/expect. An ESM import of a CJS entry
  // may expose module.exports only as `default`: a name counts there too.
  const probe = (kind, spec, names) => {
    const globals = 'for (const k of ["beforeAll","afterAll","beforeEach","afterEach"]) globalThis[k] ??= () => {}; globalThis.expect ??= Object.assign(() => ({}), { extend() {}, getState: () => ({}) });'
    const check = `const missing = ${JSON.stringify(names)}.filter((n) => !(n in m) && !(n in (m.default ?? {}))); if (missing.length) { console.error('missing exports: ' + missing.join(', ')); process.exit(1) }`
    const src = kind === 'esm' ? `${globals} const m = await import(${JSON.stringify(spec)}${spec.endsWith('.json') ? ", { with: { type: 'json' } }" : ''}); ${check}` : `${globals} const m = require(${JSON.stringify(spec)}); ${check}`
    return spawnSync(process.execPath, kind === 'esm' ? ['--input-type=module', '-e', src] : ['-e', src], { cwd: work, encoding: 'utf8' })
  }
  for (const [key, names] of Object.entries(EXPECT)) {
    const spec = key === '.' ? 'fluxlab' : `fluxlab/${key.slice(2)}`
    const entry = pkg.exports[key]
    const hasCjs = typeof entry === 'string' ? /\.(cjs|json)$/.test(entry) : 'require' in entry || /\.cjs$/.test(entry.default)
    // vitest's setup file runs only inside vitest; it is checked by the compat cells (npm run test:compat).
    if (key === './vitest-setup') continue
    for (const kind of hasCjs ? ['esm', 'cjs'] : ['esm']) {
      const r = probe(kind, spec, names)
      const ok = r.status === 0
      console.log(`release-check: ${kind === 'esm' ? 'import' : 'require'}('${spec}') ${ok ? 'ok' : 'FAIL'}`)
      if (!ok) failures.push(`${kind === 'esm' ? 'import' : 'require'}('${spec}') from the packed package failed:\n${`${r.stdout}${r.stderr}`.trim().split('\n').slice(-15).join('\n')}`)
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true })
}

if (failures.length) {
  console.error(`\nrelease-check: ${failures.length} problem(s):\n\n${failures.join('\n\n')}`)
  process.exitCode = 1
} else console.log('release-check: clean')
