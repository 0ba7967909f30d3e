/**
 * Test-only builders of a small fixture: a manifest, a non-streamed OpenAI chat cell that answers "Sunny", a
 * function-tool cell, and the two model cells and one tool cell the fixture tests write. Used by the unit tests of
 * src/cassette and by test/engine; nothing in the product imports it.
 */
import { join } from 'node:path'
import { codecFor } from '../../src/providers/registry.js'
import type { Manifest, ModelCell, ToolCell } from '../../src/cassette/cell.js'
import { writeFixture } from '../../src/cassette/fixture-write.js'

/** The URL every test model cell was sent to. */
const TEST_URL = 'https://api.openai.com/v1/chat/completions'
const BODY = JSON.stringify({
  model: 'gpt-4o-mini',
  choices: [{ message: { role: 'assistant', content: 'Sunny' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 3, completion_tokens: 1 },
})
const hex = (n: number) => `sha256:${n.toString(16).padStart(64, '0')}`

/**
 * A manifest named `weather` with no models or hosts, `over` laid on top.
 * @example
 * testManifest({ name: 'gap' })
 */
export const testManifest = (over: Partial<Manifest> = {}): Manifest => ({
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

/**
 * Model cell `seq` (step `model#<seq>`): a whole chat completion answering "Sunny", its derived fields parsed by the
 * openai-chat codec so the first-use check passes.
 * @example
 * testModelCell(1).text // 'Sunny'
 */
export function testModelCell(seq: number): ModelCell {
  const parsed = codecFor('openai-chat').parseResponse(BODY, 'application/json', 200, new URL(TEST_URL))
  return {
    seq,
    step: `model#${seq}`,
    key: hex(seq),
    family: 'openai-chat',
    url: TEST_URL,
    request: { method: 'POST', path: '/v1/chat/completions', body: {} },
    response: { status: 200, headers: { 'content-type': 'application/json' }, chunks: [{ t: 0, text: BODY }] },
    model: parsed.model,
    usage: parsed.usage,
    finishReason: parsed.finishReason,
    text: parsed.text,
    toolCalls: parsed.toolCalls,
    durationMs: 1,
    truncated: false,
  }
}

/**
 * Tool cell `seq`: the function tool `lookup` (step `tool#1`) with output 1, `over` laid on top.
 * @example
 * testToolCell(2, { output: 7 })
 */
export const testToolCell = (seq: number, over: Partial<ToolCell> = {}): ToolCell => ({
  seq,
  step: 'tool#1',
  kind: 'fn',
  name: 'lookup',
  key: hex(1000 + seq),
  args: {},
  output: 1,
  durationMs: 0,
  truncated: false,
  ...over,
})

/**
 * Write the fixture `<root>/tests/scenarios/<name>` through writeFixture (to the store in use): model cells 1 and 3
 * and tool cell 2, `tool` laid on the tool cell. Returns its directory.
 * @example
 * const dir = writeTestFixture('/virtual-1')
 */
export function writeTestFixture(root: string, manifest = testManifest(), tool: Partial<ToolCell> = {}): string {
  const dir = join(root, 'tests/scenarios', manifest.name)
  writeFixture({ dir, manifest, model: [testModelCell(1), testModelCell(3)], tools: [testToolCell(2, tool)] })
  return dir
}
