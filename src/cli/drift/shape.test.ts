import { describe, expect, test } from 'vitest'
import { bodyShape, diffShapes, renderChange } from './shape.js'

const sse = (events: Array<Record<string, unknown>>, named = false) =>
  events.map((e) => `${named ? `event: ${String(e.type)}\n` : ''}data: ${JSON.stringify(e)}\n\n`).join('')
const json = (v: unknown) => bodyShape(JSON.stringify(v), 'application/json')
const diff = (a: ReturnType<typeof bodyShape>, b: ReturnType<typeof bodyShape>) => diffShapes(a, b).map(renderChange)

describe('bodyShape', () => {
  test('collapses repeated deltas into one kind, so a longer answer is the same shape', () => {
    const delta = (text: string) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })
    const short = bodyShape(sse([{ type: 'message_start' }, delta('Hi'), { type: 'message_stop' }], true), 'text/event-stream')
    const long = bodyShape(sse([{ type: 'message_start' }, delta('Hello'), delta(' there'), delta('!'), { type: 'message_stop' }], true), 'text/event-stream')
    expect(short.order).toEqual(['message_start', 'content_block_delta/text_delta', 'message_stop'])
    expect(diff(short, long)).toEqual([])
  })

  test('names choice chunks (no type) by what their first choice carries, and Gemini candidates by their parts', () => {
    const chunk = (delta: unknown, finish: string | null = null) => ({
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta, finish_reason: finish }],
      usage: null,
    })
    const chat = bodyShape(
      sse([chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0 }] }), chunk({ tool_calls: [{ index: 0 }] }), chunk({}, 'tool_calls')]) +
        'data: [DONE]\n\n',
      undefined,
    )
    expect(chat.order).toEqual(['chat.completion.chunk/role,tool_calls', 'chat.completion.chunk/tool_calls', 'chat.completion.chunk/finish', 'data([DONE])'])
    const gemini = bodyShape(
      sse([
        {
          candidates: [{ content: { parts: [{ functionCall: { name: 'f', args: { a: 1 } } }] }, finishReason: 'STOP' }],
          usageMetadata: { promptTokenCount: 1 },
        },
      ]),
      'text/event-stream',
    )
    expect(gemini.order).toEqual(['data/functionCall,finish,usage'])
  })

  test('a JSON body: arrays by the merged shape of their elements, tool-call arguments typed but not walked', () => {
    const a = json({
      content: [
        { type: 'text', text: 'x' },
        { type: 'tool_use', id: 't', input: { city: 'Paris' } },
      ],
    })
    const b = json({
      content: [
        { type: 'tool_use', id: 't', input: { town: 'Lyon', days: 3 } },
        { type: 'text', text: 'y' },
      ],
    })
    expect(diff(a, b)).toEqual([])
    expect(diff(a, json({ content: [{ type: 'text', text: 1 }] }))).toEqual([
      '$.content[*].text  type changed: string → number',
      '$.content[*].id  removed field (was string)',
      '$.content[*].input  removed field (was object)',
    ])
  })

  test('a streamed JSON array (Gemini without alt=sse) and NDJSON are JSON; a body of neither is text', () => {
    expect(bodyShape('[{"candidates":[]}]', undefined).format).toBe('json')
    expect(bodyShape('{"a":1}\n{"a":2}\n', undefined).kinds.get('body')?.fields?.has('a')).toBe(true)
    expect(bodyShape('Internal error', 'text/plain').format).toBe('text')
  })
})

describe('diffShapes', () => {
  test('a type the recording never saw is a change; a nullable field seen only as one of its types is not', () => {
    const rec = json({ items: [{ v: null }, { v: 'x' }] })
    expect(diff(rec, json({ items: [{ v: 'y' }] }))).toEqual([])
    expect(diff(rec, json({ items: [{ v: 2 }] }))).toEqual(['$.items[*].v  type changed: null|string → number'])
  })

  test('SSE against JSON is a format change, and nothing else is compared', () => {
    expect(diff(bodyShape(sse([{ type: 'ping' }]), undefined), json({ type: 'ping' }))).toEqual(['body  format changed: sse → json'])
  })

  test('order is compared on the kinds both sides have', () => {
    const a = bodyShape(sse([{ type: 'a' }, { type: 'b' }, { type: 'c' }]), undefined)
    const b = bodyShape(sse([{ type: 'a' }, { type: 'x' }, { type: 'c' }, { type: 'b' }]), undefined)
    expect(diff(a, b)).toEqual(['event[x]  new event type ({type: string})', 'events  order changed: was a → b → c, now a → c → b'])
  })
})
