import { describe, expect, test } from 'vitest'
import { model, tool } from '../../matchers/utils/test-outcome.js'
import { anthropicCodec } from '../../providers/anthropic/index.js'
import { geminiCodec } from '../../providers/gemini/index.js'
import { openaiChatCodec } from '../../providers/openai-chat/index.js'
import { openaiResponsesCodec } from '../../providers/openai-responses/index.js'
import type { ModelCallCodec } from '../../providers/types.js'
import { closeReplay } from './close.js'
import { RunLog } from './log.js'

const log = () => new RunLog('weather', (env) => `${env} npx vitest run`)

/** The tool results a request body sends back, as the run reads them: its family's codec on the body as sent. */
const sentResults =
  ({ text, codec, url }: { text: string; codec: ModelCallCodec; url: URL }) =>
  () =>
    codec.parseRequest(JSON.parse(text) as unknown, url).toolResults

/**
 * One provider family as its SDK speaks it: the first request (a question), the id its reply gives the tool call,
 * and the next request, which sends the tool's result back (`withResult`) or asks again without it.
 */
interface Family {
  codec: ModelCallCodec
  url: string
  callId: string
  ask: unknown
  next(withResult: boolean): unknown
}

const families: Record<string, Family> = {
  'OpenAI chat completions': {
    codec: openaiChatCodec,
    url: 'https://api.openai.com/v1/chat/completions',
    callId: 'call_ab12cd34ef',
    ask: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [{ type: 'function', function: { name: 'get_weather' } }] },
    next: (withResult) => ({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        ...(withResult
          ? [
              {
                role: 'assistant',
                content: null,
                tool_calls: [{ id: 'call_ab12cd34ef', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
              },
              { role: 'tool', tool_call_id: 'call_ab12cd34ef', content: '18°C' },
            ]
          : [{ role: 'user', content: 'And in Rome?' }]),
      ],
    }),
  },
  'OpenAI Responses': {
    codec: openaiResponsesCodec,
    url: 'https://api.openai.com/v1/responses',
    callId: 'call_ab12cd34ef',
    ask: { model: 'gpt-4.1', input: [{ role: 'user', content: 'Weather in Paris?' }], tools: [{ type: 'function', name: 'get_weather' }] },
    next: (withResult) => ({
      model: 'gpt-4.1',
      previous_response_id: 'resp_0a1b2c3d4e',
      input: withResult ? [{ type: 'function_call_output', call_id: 'call_ab12cd34ef', output: '18°C' }] : [{ role: 'user', content: 'And in Rome?' }],
    }),
  },
  Anthropic: {
    codec: anthropicCodec,
    url: 'https://api.anthropic.com/v1/messages',
    callId: 'toolu_01AbCdEfGh',
    ask: {
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [{ name: 'get_weather', input_schema: {} }],
    },
    next: (withResult) => ({
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        ...(withResult
          ? [
              { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01AbCdEfGh', name: 'get_weather', input: { city: 'Paris' } }] },
              { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01AbCdEfGh', content: '18°C' }] },
            ]
          : [{ role: 'user', content: 'And in Rome?' }]),
      ],
    }),
  },
  Gemini: {
    codec: geminiCodec,
    url: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent',
    // Gemini's calls carry no id: the codec numbers them by name
    callId: 'get_weather#1',
    ask: { contents: [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }], tools: [{ functionDeclarations: [{ name: 'get_weather' }] }] },
    next: (withResult) => ({
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
        ...(withResult
          ? [
              { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
              { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { result: '18°C' } } }] },
            ]
          : [{ role: 'user', parts: [{ text: 'And in Rome?' }] }]),
      ],
    }),
  },
}

/** A replay's log: model#1 asked for `get_weather`; then, if `next` is given, model#2 was sent with that body. */
function replayed(f: Family, next?: unknown, extra: (l: RunLog) => void = () => {}): RunLog {
  const l = log()
  const sent = (seq: number, body: unknown) =>
    l.sent.push({ seq, step: `model#${seq}`, results: sentResults({ text: JSON.stringify(body), codec: f.codec, url: new URL(f.url) }) })
  const asks = model({ toolCalls: [{ name: 'get_weather', id: f.callId, args: { city: 'Paris' } }] })
  asks.cell.step = 'model#1'
  l.entries.push({ seq: 1, ...asks })
  sent(1, f.ask)
  if (next !== undefined) {
    const answer = model({ text: 'It is 18°C.' })
    answer.cell.step = 'model#2'
    l.entries.push({ seq: 2, ...answer })
    sent(2, next)
  }
  extra(l)
  return l
}

describe.each(Object.entries(families))('closeReplay, unwrapped_tool, %s', (_, f) => {
  test('no warning when no later request is made: the model turn that asked for the tool was the last', () => {
    const l = replayed(f)
    closeReplay(l, undefined, undefined)
    expect(l.divergences).toEqual([])
  })

  test('no warning when the later request does not carry the tool result: nothing ran', () => {
    const l = replayed(f, f.next(false))
    closeReplay(l, undefined, undefined)
    expect(l.divergences).toEqual([])
  })

  test('warns when a later request carries the result and no tool call on the tape answered it', () => {
    const l = replayed(f, f.next(true))
    closeReplay(l, undefined, undefined)
    const id = f.callId.startsWith('get_weather#') ? '' : ` (${f.callId})`
    expect(l.divergences).toEqual([
      {
        code: 'unwrapped_tool',
        severity: 'warning',
        step: 'model#1',
        message: `model#1 asked for \`get_weather\`${id}; model#2 sent its result back, and no tool call on the tape answered it, so the tool ran unrecorded (in this process, or in a server it reaches outside HTTP: an MCP server over stdio); wrap it with lab.tools({ get_weather }) or lab.tool('get_weather', fn), or its MCP stdio transport with lab.mcp(transport), so replay never re-fires its side effects`,
      },
    ])
  })

  test('no warning when a wrapped tool call with its id answered it', () => {
    const l = replayed(f, f.next(true), (l) => l.entries.push({ seq: 3, ...tool({ name: 'get_weather', callId: f.callId }) }))
    closeReplay(l, undefined, undefined)
    expect(l.divergences).toEqual([])
  })
})

describe('closeReplay, unwrapped_tool', () => {
  test('warns once per tool, at the first turn whose result went back', () => {
    const f = families['OpenAI chat completions']
    const l = log()
    const ids = ['call_a0000001', 'call_b0000002', 'call_c0000003']
    ids.forEach((id, i) => {
      const s = model({ toolCalls: [{ name: 'get_weather', id, args: {} }] })
      s.cell.step = `model#${i + 1}`
      l.entries.push({ seq: i + 1, ...s })
      // each request sends back the results of every turn before it
      const back = ids.slice(0, i).map((prev) => ({ role: 'tool', tool_call_id: prev, content: '18°C' }))
      l.sent.push({
        seq: i + 1,
        step: `model#${i + 1}`,
        results: sentResults({ text: JSON.stringify({ messages: [{ role: 'user', content: 'go' }, ...back] }), codec: f.codec, url: new URL(f.url) }),
      })
    })
    closeReplay(l, undefined, undefined)
    expect(l.divergences.map((d) => [d.code, d.step])).toEqual([['unwrapped_tool', 'model#1']])
  })

  test('in whole-suite mode, the advice offers a change of the test config before an edit of the code', () => {
    const f = families.Anthropic
    const l = replayed(f, f.next(true))
    closeReplay(l, undefined, undefined, 'import')
    expect(l.divergences[0].message).toBe(
      "model#1 asked for `get_weather` (toolu_01AbCdEfGh); model#2 sent its result back, and no tool call on the tape answered it, so the tool ran unrecorded (in this process, or in a server it reaches outside HTTP: an MCP server over stdio). Without editing a test: in a setup file of your config (vitest setupFiles, jest setupFilesAfterEnv), mock the module that exports it, or the factory that builds it (your own, or a library's such as LangChain's `tool`), with its tools passed through tools() from 'fluxlab', or the MCP SDK's StdioClientTransport with each transport passed through mcp() from 'fluxlab' (docs/tools.md#unwrapped-tools); or wrap it with tools({ get_weather }) or tool('get_weather', fn) from 'fluxlab' where the tools are built",
    )
  })
})
