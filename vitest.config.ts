import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const src = (p: string) => fileURLToPath(new URL(`./src/${p}`, import.meta.url))

export default defineConfig({
  resolve: {
    alias: [
      { find: /^fluxlab\/vitest$/, replacement: src('vitest.ts') },
      { find: /^fluxlab\/jest$/, replacement: src('jest.ts') },
      { find: /^fluxlab\/matchers$/, replacement: src('matchers/index.ts') },
      { find: /^fluxlab$/, replacement: src('index.ts') },
    ],
  },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'test/e2e/projects/**', 'dist/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})
