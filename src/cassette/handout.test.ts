/**
 * Issue 14: a cold read checks the bytes (schema, secret scan) and nothing else; each model cell is checked
 * against its chunks, and frozen, when it is first handed out.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { codecFor } from '../providers/registry.js'
import type { ModelCell, ToolCell } from './cell.js'
import { derivedMismatch } from './derived.js'
import { readFixture, readFixtureLines } from './fixture.js'
import { writeFixture } from './fixture-write.js'
import { rawCells } from './handout.js'

vi.mock('./derived.js', async (original) => {
  const m = await original<typeof import('./derived.js')>()
  return { ...m, derivedMismatch: vi.fn(m.derivedMismatch) }
})
const checks = vi.mocked(derivedMismatch)

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
  checks.mockClear()
})

const URL_ = 'https://api.openai.com/v1/chat/completions'
const BODY = JSON.stringify({ model: 'gpt-4o-mini', choices: [{ message: { role: 'assistant', content: 'Sunny' }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 1 } })
const parsed = codecFor('openai-chat').parseResponse(BODY, 'application/json', 200, new URL(URL_))
const model = (seq: number): ModelCell => ({
  seq,
  step: `model#${seq}`,
  key: `sha256:${seq.toString(16).padStart(64, '0')}`,
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
const tool: ToolCell = { seq: 4, step: 'tool#1', kind: 'fn', name: 'lookup', key: `sha256:${'9'.repeat(64)}`, args: {}, output: { n: 1 }, durationMs: 0, truncated: false }

function fixture(cells = [model(1), model(2), model(3)]): string {
  const root = mkdtempSync(join(tmpdir(), 'flux-handout-'))
  dirs.push(root)
  const dir = join(root, 'weather')
  writeFixture({ dir, manifest: { formatVersion: 1, fluxlabVersion: '0.1.0', name: 'weather', recordedAt: '2026-01-02T03:04:05.000Z', models: [], providerHosts: [], cassetteMaxBytes: 1_048_576, redaction: 'v1:00000000' }, model: cells, tools: [{ ...tool, seq: cells.length + 1 }] })
  return dir
}

describe('a model cell is checked against its chunks at its first use (issue 14)', () => {
  it('a cold read checks none; reading a cell checks that cell once, for every reader of the kept read', () => {
    const dir = fixture()
    const fx = readFixture(dir)
    expect(checks).not.toHaveBeenCalled()
    expect(fx.model.length).toBe(3)
    expect(checks).not.toHaveBeenCalled()
    expect(fx.model[1].text).toBe('Sunny')
    expect(checks).toHaveBeenCalledTimes(1)
    void fx.model[1]
    void readFixture(dir, { rerun: false }).model[1]
    expect(checks).toHaveBeenCalledTimes(1)
    expect(fx.model.map((c) => c.seq)).toEqual([1, 2, 3])
    expect(checks).toHaveBeenCalledTimes(3)
  })

  it('a cell is frozen when it is handed out, not by the read', () => {
    const fx = readFixture(fixture())
    const raw = rawCells(fx.model)!.raw
    expect(raw.some((c) => Object.isFrozen(c))).toBe(false)
    const [first] = fx.model
    expect(Object.isFrozen(first.response.chunks[0])).toBe(true)
    expect(Object.isFrozen(raw[1])).toBe(false)
    expect(() => (fx.model[2].usage as { input: number }).input++).toThrow(TypeError)
    expect(Object.isFrozen(fx.tools[0].output)).toBe(true)
  })

  it('hands out no cell another way: descriptors, spreads, JSON and iteration check each cell', () => {
    const dir = fixture([model(1), { ...model(2), text: 'edited' }])
    const fx = readFixture(dir, { rerun: false })
    const edited = /model\.jsonl:2: its stored "text" is "edited", but its response\.chunks say "Sunny"/
    expect(fx.model[0].text).toBe('Sunny')
    expect(() => fx.model[1]).toThrow(edited)
    expect(() => Object.getOwnPropertyDescriptor(fx.model, 1)).toThrow(edited)
    expect(() => [...fx.model]).toThrow(edited)
    expect(() => JSON.stringify(fx.model)).toThrow(edited)
    expect(() => fx.model.find((c) => c.seq === 2)).toThrow(edited)
    expect(() => Object.values(fx.model)).toThrow(edited)
  })

  it('readFixtureLines (fluxlab test) checks every cell up front', () => {
    const dir = fixture([model(1), { ...model(2), text: 'edited' }])
    const { problems } = readFixtureLines(dir, { rerun: false, collect: true })
    expect(checks).toHaveBeenCalledTimes(2)
    expect(problems.map((p) => [p.line, p.field])).toEqual([[2, 'text']])
  })
})
