// `fluxlab show`, `diff`, `scan`, and what every command shares: --help, --version, usage errors, colours.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { assertBuilt, cleanup, copyFixture, editJsonl, EXAMPLE, fluxlab, read, recordDragons, REPO, retrace, tempDir } from './support.js'
import { PATTERN_IDS, fakeSecret, leaks } from '../support/secret-corpus.js'

const SECRET = ['sk', 'proj', 'Z'.repeat(10) + 'k9'.repeat(14)].join('-')
const ANTHROPIC = ['sk', 'ant', 'api03', 'x'.repeat(60) + 'AA'].join('-')
const ESC = '\u001b['

let cwd: string
let root: string

beforeAll(async () => {
  assertBuilt()
  cwd = tempDir()
  root = join(cwd, 'tests/scenarios')
  copyFixture(EXAMPLE, root, 'capital-agent')
  const dragons = await recordDragons(root)
  const fork = copyFixture(dragons, tempDir(), 'alt')
  editJsonl(join(fork, 'tools.jsonl'), 2, (c) => (c.output = false))
  retrace(fork)
  copyFixture(fork, dragons, 'forks/alt')
  copyFixture(dragons, root, 'dragons-copy')
  const unpriced = copyFixture(EXAMPLE, root, 'finetune')
  editJsonl(join(unpriced, 'model.jsonl'), 1, (c) => {
    // the chunks say which model answered; the stored field must agree with them (FLUX_FIXTURE_INVALID otherwise)
    c.model = 'my-finetune'
    for (const ch of c.response.chunks) ch.text = ch.text.replaceAll('gpt-4o-mini-2024-07-18', 'my-finetune')
  })
  retrace(unpriced)
})
afterAll(cleanup)

describe.concurrent('fluxlab show', () => {
  test('prints the trace as a tree: model turns with model, tokens and cost; tool calls with args and outputs; the final text', async () => {
    const r = await fluxlab(['show', 'capital-agent'], { cwd })
    expect(r.code, r.output).toBe(0)
    expect(r.stdout.split('\n').slice(1).join('\n')).toBe(
      [
        '2 model calls · 1 tool call · in 131 · out 24 · $0.0000341 (list prices as of 2026-10-24)',
        '├─ 1 model#1 gpt-4o-mini-2024-07-18 (openai-chat) · in 53 · out 15 · $0.0000169 · tool_calls · 44 ms',
        '│  └─ → get_capital {"country":"UK"}',
        '├─ 2 tool#1 GET 127.0.0.1:4010/capital {"query":{"country":"UK"}} → 200 · 7 ms',
        '│  └─ output {"capital":"London"}',
        '├─ 3 model#2 gpt-4o-mini-2024-07-18 (openai-chat) · in 78 · out 9 · $0.0000171 · stop · 34 ms',
        '│  └─ text "The capital of the UK is London."',
        '└─ final "The capital of the UK is London."',
        '',
      ].join('\n'),
    )
    expect(r.stdout).not.toContain(ESC)
  })

  test('colours follow the terminal: on with FORCE_COLOR, off under NO_COLOR', async () => {
    expect((await fluxlab(['show', 'capital-agent'], { cwd, env: { NO_COLOR: undefined, FORCE_COLOR: '1' } })).stdout).toContain(ESC)
    expect((await fluxlab(['show', 'capital-agent'], { cwd, env: { NO_COLOR: '1', FORCE_COLOR: '1' } })).stdout).not.toContain(ESC)
  })

  test('a model with no price shows "no price" and does not fail; a price from the config is used', async () => {
    const r = await fluxlab(['show', 'finetune'], { cwd })
    expect(r.code, r.output).toBe(0)
    expect(r.stdout).toContain('├─ 1 model#1 my-finetune (openai-chat) · in 53 · out 15 · no price · tool_calls')
    expect(r.stdout).toContain('+ no price for my-finetune')
    const withPrice = tempDir()
    copyFixture(join(root, 'finetune'), join(withPrice, 'tests/scenarios'), 'finetune')
    writeFileSync(join(withPrice, 'fluxlab.config.mjs'), "export default { pricing: { 'my-finetune': { input: 1000, output: 1000 } } }\n")
    expect((await fluxlab(['show', 'finetune'], { cwd: withPrice })).stdout).toContain('my-finetune (openai-chat) · in 53 · out 15 · $0.0680')
  })

  test('a fork names its parent and marks the step where it diverges', async () => {
    const r = await fluxlab(['show', 'dragons/forks/alt'], { cwd })
    expect(r.code, r.output).toBe(0)
    expect(r.stdout).toContain('fork of tests/scenarios/dragons: diverges at step 4')
    expect(r.stdout).toMatch(/├─ 4 tool#2 can_have_dragons .* ◆ diverges here/)
  })

  test('an unknown scenario is exit 3', async () => {
    const r = await fluxlab(['show', 'nope'], { cwd })
    expect(r.code).toBe(3)
    expect(r.stderr).toContain('Failed to find scenario "nope"')
  })
})

describe.concurrent('fluxlab diff', () => {
  test('two fixtures with the same trace: exit 0', async () => {
    const r = await fluxlab(['diff', 'dragons', 'dragons-copy'], { cwd })
    expect(r.code, r.output).toBe(0)
    expect(r.stdout).toContain('same trace: 5 steps')
  })

  test('a fork: exit 1, steps aligned, the first divergence explained', async () => {
    const r = await fluxlab(['diff', 'dragons', 'dragons/forks/alt'], { cwd })
    expect(r.code, r.output).toBe(1)
    expect(r.stdout).toContain('--- a tests/scenarios/dragons (5 steps)')
    expect(r.stdout).toContain('+++ b tests/scenarios/dragons/forks/alt (5 steps)')
    expect(r.stdout).toMatch(/ {2}= 3 model#2 openai-chat/)
    expect(r.stdout).toMatch(
      / {2}≠ 4\n {4}- tool#2 can_have_dragons call_<2> \{"population":123124\} → true\n {4}\+ tool#2 can_have_dragons call_<2> \{"population":123124\} → false/,
    )
    expect(r.stdout).toContain('first divergence at step 4:\n  • output (root) differs: true → false')
  })

  test('a changed request: the JSON-path diff of the two requests at the first step that differs', async () => {
    const other = copyFixture(EXAMPLE, tempDir(), 'other')
    editJsonl(join(other, 'model.jsonl'), 1, (c) => {
      c.request.body.messages[0].content = 'What is the capital of France?'
      // usage as the chunks report it (stored usage must agree with the chunks)
      c.usage.input = 54
      for (const ch of c.response.chunks) ch.text = ch.text.replace('"prompt_tokens":53', '"prompt_tokens":54')
    })
    retrace(other)
    const r = await fluxlab(['diff', 'capital-agent', other], { cwd })
    expect(r.code).toBe(1)
    expect(r.stdout).toContain(
      'first divergence at step 1:\n  • request messages[0].content differs at character 24: "What is the capital of the UK? Use the tool, then answer." → "What is the capital of France?"',
    )
  })

  test('needs two scenarios (64) that exist (3)', async () => {
    expect((await fluxlab(['diff', 'dragons'], { cwd })).code).toBe(64)
    expect((await fluxlab(['diff', 'dragons', 'nope'], { cwd })).code).toBe(3)
  })
})

describe.concurrent('fluxlab scan', () => {
  test('a clean fixture root: exit 0', async () => {
    const r = await fluxlab(['scan'], { cwd })
    expect(r.code, r.output).toBe(0)
    expect(r.stderr).toMatch(/\[fluxlab\] scanned \d+ files: no secrets found/)
  })

  test('findings: exit 1 with file:line:rule, never the secret; node_modules and binary files are skipped', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'notes.txt'), `line one\nline two\nthe key is ${SECRET}\n`)
    writeFileSync(join(dir, 'cells.jsonl'), `{"a":1}\n{"text":"${ANTHROPIC}"}\n`)
    writeFileSync(join(dir, 'blob.bin'), Buffer.concat([Buffer.from([0, 1, 2]), Buffer.from(SECRET)]))
    mkdirSync(join(dir, 'node_modules/x'), { recursive: true })
    writeFileSync(join(dir, 'node_modules/x/index.js'), `const k = "${SECRET}"\n`)
    const r = await fluxlab(['scan', 'notes.txt', '.'], { cwd: dir })
    expect(r.code).toBe(1)
    expect(r.stdout.trim().split('\n')).toEqual(['notes.txt:3:openai-key', 'cells.jsonl:2:anthropic-key (at text)', 'notes.txt:3:openai-key'])
    expect(r.stderr).toContain('[fluxlab] Failed to pass the secret scan: 3 secret-looking values in 2 of 4 files, listed above as file:line:rule. Remove them')
    expect(r.output).not.toContain(SECRET)
    expect(r.output).not.toContain(ANTHROPIC)
  })

  test('a .env holding one of each of the 14 corpus patterns (a basic-auth URL too): exit 1, one finding a line', async () => {
    const dir = tempDir()
    const keys = PATTERN_IDS.map((p) => fakeSecret(p))
    const env = keys.map((k, i) => `VAR_${i}=${JSON.stringify(k.material)}`).join('\n')
    writeFileSync(join(dir, '.env'), `${env}\n`)
    const r = await fluxlab(['scan', '.env'], { cwd: dir })
    expect(r.code, r.output).toBe(1)
    expect(r.stdout.trim().split('\n')).toEqual(PATTERN_IDS.map((p, i) => `.env:${i + 1}:${p === 'github-pat' ? 'github-token' : p}`))
    for (const k of keys) expect(leaks(r.output, k.secret), k.pattern).toBe(false)
  })

  test('rules disabled in the config are skipped; a missing path is exit 3', async () => {
    const dir = tempDir()
    const jwt = ['eyJhbGciOiJIUzI1NiJ9', 'eyJzdWIiOiJ0ZXN0LXVzZXIifQ', 'c2lnbmF0dXJl'].join('.')
    writeFileSync(join(dir, 'token.txt'), `${jwt}\n`)
    expect((await fluxlab(['scan', 'token.txt'], { cwd: dir })).stdout).toContain('token.txt:1:jwt')
    writeFileSync(join(dir, 'fluxlab.config.json'), JSON.stringify({ redact: { disable: ['jwt'] } }))
    expect((await fluxlab(['scan', 'token.txt'], { cwd: dir })).code).toBe(0)
    const r = await fluxlab(['scan', 'missing.txt'], { cwd: dir })
    expect(r.code).toBe(3)
    expect(r.stderr).toContain('Failed to scan for secrets: missing.txt does not exist. Pass existing files or directories.')
  })
})

describe.concurrent('every command', () => {
  const version = JSON.parse(read(join(REPO, 'package.json'))).version as string

  test('--version prints the package version', async () => {
    const r = await fluxlab(['--version'], { cwd })
    expect(r.code).toBe(0)
    expect(r.stdout.trim()).toBe(version)
  })

  for (const command of ['test', 'record', 'replay', 'show', 'diff', 'scan', 'drift'])
    test(`${command} --help shows its usage, options and examples`, async () => {
      const r = await fluxlab(command === 'record' || command === 'replay' ? [command, 'x', '--help', '--', 'node', '--help'] : [command, '--help'], { cwd })
      expect(r.code).toBe(0)
      expect(r.stdout).toContain(`Usage: fluxlab ${command}`)
      expect(r.stdout).toContain('Examples:')
      expect(r.stdout).toContain(`npx fluxlab ${command}`)
    })

  test('no command prints the overview (exit 64); help <command> and --help work', async () => {
    const none = await fluxlab([], { cwd })
    expect(none.code).toBe(64)
    expect(none.stdout).toContain('Usage: fluxlab <command> [options]')
    expect((await fluxlab(['--help'], { cwd })).code).toBe(0)
    expect((await fluxlab(['help', 'scan'], { cwd })).stdout).toContain('Usage: fluxlab scan')
  })

  test('an unknown command or option is a usage error (64) pointing at --help', async () => {
    const cmd = await fluxlab(['tset'], { cwd })
    expect(cmd.code).toBe(64)
    expect(cmd.stderr).toContain(
      '[fluxlab] Failed to read the command line: there is no command "tset"; the commands are test, record, replay, serve, show, diff, scan, sessions, drift, report. See `fluxlab --help`.',
    )
    const opt = await fluxlab(['test', '--jsn'], { cwd })
    expect(opt.code).toBe(64)
    expect(opt.stderr).toContain("Unknown option '--jsn'")
    expect(opt.stderr).toContain('See `fluxlab test --help`.')
  })
})
