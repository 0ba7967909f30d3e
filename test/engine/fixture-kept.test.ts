// The node store keeps a fixture read while its files are unchanged on disk (issue 14, src/store/stamp.ts): a swap, an
// edit in place with the same size and times, a directory swapped by hand are each read again.
import { closeSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { codecFor } from '../../src/providers/registry.js'
import type { Manifest, ModelCell, ToolCell } from '../../src/cassette/cell.js'
import { readFixture } from '../../src/cassette/fixture.js'
import { writeFixture } from '../../src/cassette/fixture-write.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const manifest = (over: Partial<Manifest> = {}): Manifest => ({
  formatVersion: 1,
  fluxlabVersion: '0.1.0',
  name: 'weather',
  recordedAt: '2026-01-02T03:04:05.000Z',
  models: [],
  providerHosts: [],
  cassetteMaxBytes: 1_048_576,
  redaction: 'v1:00000000',
  ...over,
})
const URL_ = 'https://api.openai.com/v1/chat/completions'
const BODY = JSON.stringify({
  model: 'gpt-4o-mini',
  choices: [{ message: { role: 'assistant', content: 'Sunny' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 3, completion_tokens: 1 },
})
const parsed = codecFor('openai-chat').parseResponse(BODY, 'application/json', 200, new URL(URL_))
const hex = (n: number) => `sha256:${n.toString(16).padStart(64, '0')}`
const model = (seq: number): ModelCell => ({
  seq,
  step: `model#${seq}`,
  key: hex(seq),
  family: 'openai-chat',
  url: URL_,
  request: { method: 'POST', path: '/v1/chat/completions', body: {} },
  response: { status: 200, headers: { 'content-type': 'application/json' }, chunks: [{ t: 0, text: BODY }] },
  model: parsed.model,
  usage: parsed.usage,
  finishReason: parsed.finishReason,
  text: parsed.text,
  toolCalls: parsed.toolCalls,
  durationMs: 1,
  truncated: false,
})
const tool = (seq: number): ToolCell => ({
  seq,
  step: 'tool#1',
  kind: 'fn',
  name: 'lookup',
  key: hex(1000 + seq),
  args: {},
  output: 1,
  durationMs: 0,
  truncated: false,
})

/** A fixture at `<tmp>/tests/scenarios/<name>`, written by writeFixture. */
function fixture(m: Manifest = manifest()): string {
  const root = mkdtempSync(join(tmpdir(), 'flux-fixture-'))
  dirs.push(root)
  const dir = join(root, 'tests/scenarios', m.name)
  writeFixture({ dir, manifest: m, model: [model(1), model(3)], tools: [tool(2)] })
  return dir
}
describe('readFixture keeps what it read from disk (issue 14)', () => {
  const T = 1_700_000_000 // a fixed file time, in seconds: stat sizes and times below are equal on purpose
  const pin = (dir: string) => {
    for (const f of ['scenario.yaml', 'model.jsonl', 'tools.jsonl', '.']) utimesSync(join(dir, f), T, T)
  }
  /** Rewrite tools.jsonl in place (same inode), same size: the tool's output 1 becomes `to`. */
  const editOutput = (dir: string, to: number) => {
    const file = join(dir, 'tools.jsonl')
    const text = readFileSync(file, 'utf8')
    const next = text.replace(/"output":\d/, `"output":${to}`)
    expect(next.length).toBe(text.length)
    const fd = openSync(file, 'r+')
    writeSync(fd, next, 0, 'utf8')
    closeSync(fd)
  }
  const outputOf = (dir: string) => readFixture(dir).tools[0].output
  /** A fixture whose tool cell has no digest (as recorded before issue 28): its edits are read, not refused as digest_mismatch. */
  const undigested = () => {
    const dir = fixture()
    const file = join(dir, 'tools.jsonl')
    writeFileSync(file, readFileSync(file, 'utf8').replace(/"digest":"sha256:[0-9a-f]{64}",/, ''))
    return dir
  }

  it('reads a re-recorded fixture (the directory swapped whole) again, even with files of the same size and times', () => {
    const dir = fixture()
    pin(dir)
    expect(outputOf(dir)).toBe(1)
    writeFixture({ dir, manifest: manifest(), model: [model(1), model(3)], tools: [{ ...tool(2), output: 7 }] })
    pin(dir)
    expect(outputOf(dir)).toBe(7)
  })

  it('reads a file edited in place with the same size and its old mtime again', () => {
    const dir = undigested()
    pin(dir)
    expect(outputOf(dir)).toBe(1)
    editOutput(dir, 5)
    pin(dir)
    expect(outputOf(dir)).toBe(5)
  })

  it('reads a file edited in place right after the read (same size, same time tick) again', () => {
    const dir = undigested()
    for (let i = 2; i < 10; i++) {
      readFixture(dir)
      editOutput(dir, i)
      expect(outputOf(dir)).toBe(i)
      const file = join(dir, 'tools.jsonl')
      writeFileSync(file, readFileSync(file, 'utf8').replace(/"output":\d/, '"output":1'))
    }
  })

  it('reads a directory swapped in by hand (another copy with equal sizes and times) again', () => {
    const dir = fixture()
    const other = `${dir}-other`
    writeFixture({ dir: other, manifest: manifest(), model: [model(1), model(3)], tools: [{ ...tool(2), output: 8 }] })
    pin(dir)
    pin(other)
    expect(outputOf(dir)).toBe(1)
    renameSync(dir, `${dir}-old`)
    renameSync(other, dir)
    pin(dir)
    expect(outputOf(dir)).toBe(8)
  })
})
