import { describe, expect, test } from 'vitest'
import type { ModelCell } from '../../cassette/cell.js'
import { ModelTape, ToolTape } from './tape.js'

const cell = (seq: number, path: string, family: ModelCell['family'], body: unknown): ModelCell => ({
  seq,
  step: `model#${seq}`,
  key: `k${seq}`,
  family,
  url: `https://api.openai.com${path}`,
  request: { method: 'POST', path, body },
  response: { status: 200, headers: {}, chunks: [] },
  usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
  text: '',
  toolCalls: [],
  durationMs: 0,
  truncated: false,
})

describe('ModelTape.take', () => {
  const cells = [cell(1, '/v1/chat/completions', 'openai-chat', { m: 1 }), cell(2, '/v1/chat/completions', 'openai-chat', { m: 2 })]

  test('serves the cell with the key, else the next one at the same endpoint as drift', () => {
    const tape = new ModelTape(cells)
    expect(tape.take(cells[1].request, 'k2')).toMatchObject({ kind: 'hit', cell: { seq: 2 } })
    expect(tape.take({ method: 'POST', path: '/v1/chat/completions', body: { m: 9 } }, 'other')).toMatchObject({ kind: 'drift', cell: { seq: 1 } })
    expect(tape.take({ method: 'POST', path: '/v1/chat/completions', body: {} }, 'more')).toMatchObject({ kind: 'miss', reason: 'overflow' })
  })

  test('a request at an endpoint the recording has nothing left at is an endpoint miss naming the next unused call, not an overflow', () => {
    const tape = new ModelTape(cells)
    const take = tape.take({ method: 'POST', path: '/v1/embeddings', body: { input: 'x' } }, 'emb')
    expect(take).toMatchObject({ kind: 'miss', reason: 'endpoint', closest: { step: 'model#1' } })
  })
})

describe('ToolTape.take', () => {
  test('a miss on an HTTP tool at another host:port names the call at the same method and path as the closest, with a diff', () => {
    const tape = new ToolTape([
      {
        seq: 1,
        step: 'tool#1',
        kind: 'http',
        name: 'GET 127.0.0.1:4010/weather',
        key: 'a',
        args: { query: { city: 'Paris' } },
        durationMs: 0,
        truncated: false,
      },
    ])
    const take = tape.take({ kind: 'http', name: 'GET 127.0.0.1:5123/weather', key: 'b', args: { query: { city: 'Oslo' } } })
    expect(take).toMatchObject({ kind: 'miss', closest: { step: 'tool#1' }, diff: [{ path: 'query.city', recorded: 'Paris', actual: 'Oslo' }] })
  })
})
