import { describe, expect, test } from 'vitest'
import { commandOf, isPackageManager, mayStartNode, withChildEnv } from './child-process.js'

describe('a child process of a run', () => {
  test("is a package manager's own process when its entry script is npm's, npx's, pnpm's, yarn's or corepack's", () => {
    for (const entry of [
      '/usr/bin/npx',
      '/usr/local/bin/npm',
      '/usr/lib/node_modules/npm/bin/npx-cli.js',
      'C:\\nodejs\\node_modules\\npm\\bin\\npm-cli.js',
      '/home/u/.local/share/pnpm/pnpm',
      '/repo/node_modules/pnpm/bin/pnpm.cjs',
      '/usr/lib/node_modules/yarn/bin/yarn.js',
      '/repo/.yarn/releases/yarn-4.5.0.cjs',
      '/usr/lib/node_modules/corepack/dist/npx.js',
    ])
      expect(isPackageManager(entry), entry).toBe(true)
    for (const entry of [
      undefined,
      '/repo/node_modules/.bin/tsx',
      '/repo/scripts/npm-release.mjs',
      '/repo/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js',
      'server.mjs',
    ])
      expect(isPackageManager(entry), entry).toBe(false)
    // behind a symlink (a bin of node_modules/.bin): the real path decides
    expect(isPackageManager('/repo/node_modules/.bin/pnpm-shim', () => '/repo/node_modules/pnpm/bin/pnpm.cjs')).toBe(true)
    expect(
      isPackageManager('/repo/gone', () => {
        throw new Error('ENOENT')
      }),
    ).toBe(false)
  })

  test('is named by the command line a person typed: a shell child by its script', () => {
    expect(commandOf(['/usr/bin/node', 'child.mjs', '--x'])).toBe('/usr/bin/node child.mjs --x')
    expect(commandOf(['/bin/sh', '-c', 'npx tsx examples/a.ts'])).toBe('npx tsx examples/a.ts')
    expect(commandOf(['bash', '-c', 'echo hi'])).toBe('echo hi')
    expect(commandOf(['/usr/bin/grep', '-c', 'x'])).toBe('/usr/bin/grep -c x')
    expect(commandOf([], 'node')).toBe('node')
  })

  test('gets the preload once in NODE_OPTIONS, beside what was there, and its variables replace stale ones', () => {
    const add = { preload: 'file:///p/dist/preload.js', env: { FLUX_TREE: '/tmp/b.sock', FLUX_TREE_TOKEN: 't2' } }
    const pairs = ['PATH=/bin', 'NODE_OPTIONS=--max-old-space-size=512 --import file:///old/dist/preload.js', 'FLUX_TREE=/tmp/a.sock', 'A=b=c']
    expect(withChildEnv(pairs, add)).toEqual([
      'PATH=/bin',
      'A=b=c',
      'FLUX_TREE=/tmp/b.sock',
      'FLUX_TREE_TOKEN=t2',
      'NODE_OPTIONS=--max-old-space-size=512 --import file:///p/dist/preload.js',
    ])
    expect(withChildEnv([], add).at(-1)).toBe('NODE_OPTIONS=--import file:///p/dist/preload.js')
  })

  test("gets the defaults (a replay's placeholder keys) only where its environment lacks them", () => {
    const add = {
      preload: 'file:///p.js',
      env: { FLUX_TREE: '/s' },
      defaults: { OPENAI_API_KEY: 'fluxlab-replay-no-key-OPENAI_API_KEY', ANTHROPIC_API_KEY: 'fluxlab-replay-no-key-ANTHROPIC_API_KEY' },
    }
    expect(withChildEnv(['ANTHROPIC_API_KEY=sk-ant-own'], add)).toEqual([
      'ANTHROPIC_API_KEY=sk-ant-own',
      'OPENAI_API_KEY=fluxlab-replay-no-key-OPENAI_API_KEY',
      'FLUX_TREE=/s',
      'NODE_OPTIONS=--import file:///p.js',
    ])
  })

  test('started synchronously, needs a holder unless it is one simple command of a program that starts no Node', () => {
    expect(mayStartNode(['git rev-parse HEAD'], true)).toBe(false)
    expect(mayStartNode(['/usr/bin/git', 'status'], false)).toBe(false)
    expect(mayStartNode(['echo hi'], true)).toBe(false)
    expect(mayStartNode(['npx tsx examples/a.ts'], true)).toBe(true)
    expect(mayStartNode(['git status && node x.js'], true)).toBe(true)
    expect(mayStartNode(['rm -rf out && mkdir -p out; echo done > out/log 2>&1'], true)).toBe(false)
    expect(mayStartNode(['git log | head -n 3'], true)).toBe(false)
    expect(mayStartNode(['LANG=C git status'], true)).toBe(false)
    expect(mayStartNode(['NODE_OPTIONS= python3 tool.py'], true)).toBe(true)
    expect(mayStartNode(['cat x | node y.js'], true)).toBe(true)
    expect(mayStartNode(['echo $(node -v)'], true)).toBe(true)
    expect(mayStartNode(['env', 'node', 'x.js'], false)).toBe(true)
    expect(mayStartNode([process.execPath, 'x.js'], false)).toBe(true)
  })
})
