/**
 * The capital agent of examples/capital-agent (OpenAI SDK, a streaming tool loop, one HTTP tool), as the engine tests
 * drive it against the committed recording: it asks, runs each tool call the model requests through `fetchTool`, and
 * asks again, for at most `steps` model calls. Returns each call's streamed text, in order.
 */
import OpenAI from 'openai'

const CAPITAL_QUESTION = 'What is the capital of the UK? Use the tool, then answer.'
const tools = [
  {
    type: 'function' as const,
    function: {
      name: 'get_capital',
      description: '',
      parameters: { type: 'object', properties: { country: { type: 'string' } }, required: ['country'], additionalProperties: false },
      strict: true,
    },
  },
]

export interface CapitalLoopOptions {
  /** The most model calls to make (default 5). */
  steps?: number
  /** How the tool's HTTP call is made (default the global `fetch`). */
  fetchTool?: (url: string) => Promise<Response>
  /** Each model call's text, as it is served (the same array is returned). */
  texts?: string[]
  /** What to do when the last allowed call still asked for tools: return what was served (default), or throw. */
  atLimit?: 'return' | 'throw'
}

export async function capitalToolLoop(
  client: OpenAI,
  { steps = 5, fetchTool = (url) => fetch(url), texts = [], atLimit = 'return' }: CapitalLoopOptions = {},
): Promise<string[]> {
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: CAPITAL_QUESTION }]
  for (let step = 1; step <= steps; step++) {
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages,
      tools,
      tool_choice: 'auto',
      stream: true,
      stream_options: { include_usage: true },
    })
    let text = ''
    const calls: Array<{ id: string; name: string; args: string }> = []
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta
      if (delta?.content) text += delta.content
      for (const tc of delta?.tool_calls ?? []) {
        calls[tc.index] ??= { id: '', name: '', args: '' }
        if (tc.id) calls[tc.index].id = tc.id
        if (tc.function?.name) calls[tc.index].name = tc.function.name
        if (tc.function?.arguments) calls[tc.index].args += tc.function.arguments
      }
    }
    texts.push(text)
    if (calls.length === 0) return texts
    messages.push({
      role: 'assistant',
      content: text || null,
      tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } })),
    })
    for (const call of calls) {
      const res = await fetchTool(`http://127.0.0.1:4010/capital?country=${encodeURIComponent(JSON.parse(call.args).country)}`)
      messages.push({ role: 'tool', tool_call_id: call.id, content: String(((await res.json()) as { capital: unknown }).capital) })
    }
  }
  if (atLimit === 'throw') throw new Error(`the agent did not finish in ${steps} steps`)
  return texts
}
