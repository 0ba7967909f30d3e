// Point each runner entry's declarations at its matcher augmentation. tsup's
// declaration bundler drops triple-slash references, so they are added here.
import { readFileSync, writeFileSync } from 'node:fs'

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
