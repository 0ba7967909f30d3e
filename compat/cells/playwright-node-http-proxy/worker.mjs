// The cell's render worker: a plain node:http server with the chat page and GET /api/chat (streams an OpenAI answer
// to the page as server-sent events, with one HTTP tool call in between). server.mjs starts it as a child process
// and forwards every request to it over HTTP. Nothing here knows fluxlab.
import { createServer } from 'node:http'
import OpenAI from 'openai'

const PROVIDER_URL = process.env.PROVIDER_URL ?? 'http://127.0.0.1:9'
// Built at import, as apps do: it reads OPENAI_API_KEY from the environment.
const openai = new OpenAI({ baseURL: `${PROVIDER_URL}/v1` })

const tools = [{ type: 'function', function: { name: 'get_capital', description: 'The capital of a country', parameters: { type: 'object', properties: { country: { type: 'string' } }, required: ['country'], additionalProperties: false }, strict: true } }]

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Capital chat</title></head>
<body>
  <h1>Capital chat</h1>
  <form id="ask"><input id="q" name="q" aria-label="question"><button>Ask</button></form>
  <p id="answer" data-events="0"></p>
  <script>
    document.getElementById('ask').addEventListener('submit', (e) => {
      e.preventDefault()
      const answer = document.getElementById('answer')
      answer.textContent = ''
      answer.dataset.events = '0'
      const source = new EventSource('/api/chat?q=' + encodeURIComponent(document.getElementById('q').value))
      source.onmessage = (m) => {
        answer.textContent += JSON.parse(m.data).delta
        answer.dataset.events = String(Number(answer.dataset.events) + 1)
      }
      source.addEventListener('done', () => { source.close(); answer.dataset.done = 'yes' })
      source.addEventListener('failed', (m) => { source.close(); answer.dataset.done = 'failed'; answer.textContent = m.data })
    })
  </script>
</body></html>`

/** One model turn, streamed: `onText` gets each content delta; the tool calls come back whole. */
async function turn(messages, onText) {
  const stream = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true, tools })
  const calls = []
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta
    if (delta?.content) onText(delta.content)
    for (const tc of delta?.tool_calls ?? []) {
      calls[tc.index] ??= { id: '', name: '', args: '' }
      if (tc.id) calls[tc.index].id = tc.id
      if (tc.function?.name) calls[tc.index].name = tc.function.name
      if (tc.function?.arguments) calls[tc.index].args += tc.function.arguments
    }
  }
  return calls
}

async function getCapital(country) {
  const res = await fetch(`${PROVIDER_URL}/geo/capital?country=${encodeURIComponent(country)}`)
  if (!res.ok) throw new Error(`the geography service answered ${res.status}`)
  return (await res.json()).capital
}

async function chat(question, res) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' })
  const send = (text) => res.write(`data: ${JSON.stringify({ delta: text })}\n\n`)
  try {
    const messages = [{ role: 'user', content: question }]
    const calls = await turn(messages, send)
    messages.push({ role: 'assistant', content: null, tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } })) })
    for (const c of calls) messages.push({ role: 'tool', tool_call_id: c.id, content: await getCapital(JSON.parse(c.args).country) })
    await turn(messages, send)
    res.end('event: done\ndata: {}\n\n')
  } catch (e) {
    res.end(`event: failed\ndata: ${JSON.stringify(String(e?.message ?? e))}\n\n`)
  }
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://app')
  if (url.pathname === '/') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE)
  if (url.pathname === '/api/health') return res.writeHead(200).end('ok')
  if (url.pathname === '/api/chat') return void chat(url.searchParams.get('q') ?? '', res)
  res.writeHead(404).end()
})
server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }))
