import { describe, expect, it } from 'vitest'
import { isModelCell, isToolCell } from './cell-check.js'
import { modelCellSchema, toolCellSchema } from './cell-schema.js'
import { codecs, registerFamily } from '../providers/registry.js'

const KEY = `sha256:${'a'.repeat(64)}`
const none = { status: 0, headers: {}, chunks: [] }
const model = (response: object, extra: object = {}) => ({
  seq: 1,
  step: 'model#1',
  key: KEY,
  family: 'openai-chat',
  url: 'https://api.openai.com/v1/chat/completions',
  request: { method: 'POST', path: '/v1/chat/completions', body: {} },
  response,
  usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
  text: '',
  toolCalls: [],
  durationMs: 1,
  truncated: false,
  ...extra,
})
const tool = (response: object) => ({
  seq: 1,
  step: 'tool#1',
  kind: 'http',
  name: 'mcp mark_item',
  key: KEY,
  args: {},
  response,
  durationMs: 1,
  truncated: false,
})
/** Both checks of a line, which must agree (cell-check.ts is cell-schema.ts by hand). */
const accepts = (v: object, kind: 'model' | 'tool') =>
  kind === 'model' ? [isModelCell(v), modelCellSchema.safeParse(v).success] : [isToolCell(v), toolCellSchema.safeParse(v).success]

describe('a call that never got an answer (status 0)', () => {
  it('is a valid cell when the client aborted it, or when it was still waiting at the end of the run (open)', () => {
    for (const response of [
      { ...none, clientAbort: { afterChunks: 0, t: 200 } },
      { ...none, open: true },
    ]) {
      expect(accepts(model(response), 'model')).toEqual([true, true])
      expect(accepts(tool(response), 'tool')).toEqual([true, true])
    }
  })

  it('is refused with no abort, no open and no transport error, or with chunks', () => {
    expect(accepts(model(none), 'model')).toEqual([false, false])
    expect(accepts(model({ ...none, open: true, chunks: [{ t: 1, text: 'x' }] }), 'model')).toEqual([false, false])
    expect(accepts(tool({ ...none, open: false }), 'tool')).toEqual([false, false])
  })
})

describe("a model cell's family", () => {
  const ok = { status: 200, headers: {}, chunks: [] }

  it('is any family the registry holds, one registered later included, and none other', () => {
    const acme = model(ok, { family: 'acme' })
    expect(accepts(acme, 'model')).toEqual([false, false])
    const issue = modelCellSchema.safeParse(acme).error?.issues.find((i) => i.path[0] === 'family')?.message
    expect(issue).toBe(`expected "family" (one of ${codecs.map((c) => c.family).join(', ')})`)
    const undo = registerFamily({ ...codecs[0], family: 'acme' })
    try {
      expect(accepts(acme, 'model')).toEqual([true, true])
    } finally {
      undo()
    }
    expect(accepts(acme, 'model')).toEqual([false, false])
  })
})
