// The example app: a chat page and one server route. GET /api/chat?q=… asks OpenAI (streamed, with the `get_capital`
// tool, which the route answers over HTTP from the geography service) and streams the answer to the page as
// server-sent events, one event per token. Nothing here knows fluxlab: Playwright starts it as
// `npx fluxlab serve -- node server.mjs` (playwright.config.ts).
import { createServer } from 'node:http'
import OpenAI from 'openai'

const PORT = Number(process.env.PORT ?? 3210)
const GEO_URL = process.env.GEO_URL ?? 'http://127.0.0.1:4010'
// Built at import, as apps do: it reads OPENAI_API_KEY (and OPENAI_BASE_URL) from the environment.
const openai = new OpenAI()

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
      delete answer.dataset.done
      const source = new EventSource('/api/chat?q=' + encodeURIComponent(document.getElementById('q').value))
      let first, seen, firstAt
      source.onmessage = (m) => {
        const { delta, at } = JSON.parse(m.data)
        answer.textContent += delta
        answer.dataset.events = String(Number(answer.dataset.events) + 1)
        // how long the tokens took to arrive, first to last: the pace the page renders at
        first ??= performance.now()
        answer.dataset.span = String(Math.round(performance.now() - first))
        // the same span by the server's clock (each event says when it was sent), and how long after the page saw the
        // first token the server sent this one: a page starved of CPU reads what it missed in one go, the sender's
        // clock keeps the pace
        firstAt ??= at
        seen ??= Date.now()
        answer.dataset.sent = String(at - firstAt)
        answer.dataset.ahead = String(at - seen)
      }
      source.addEventListener('done', () => { source.close(); answer.dataset.done = 'yes' })
      source.addEventListener('failed', (m) => { source.close(); answer.dataset.done = 'failed'; answer.textContent = m.data })
    })
  </script>
</body></html>`

/** One model turn, streamed: `onText` gets each content delta as it arrives; the tool calls come back whole. */
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
  const res = await fetch(`${GEO_URL}/geo/capital?country=${encodeURIComponent(country)}`)
  if (!res.ok) throw new Error(`the geography service answered ${res.status}`)
  return (await res.json()).capital
}

async function chat(question, res) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' })
  const send = (text) => res.write(`data: ${JSON.stringify({ delta: text, at: Date.now() })}\n\n`)
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

createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://app')
  if (url.pathname === '/') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE)
  if (url.pathname === '/health') return res.writeHead(200).end('ok')
  if (url.pathname === '/api/chat') return void chat(url.searchParams.get('q') ?? '', res)
  res.writeHead(404).end()
}).listen(PORT, '127.0.0.1', () => console.log(`chat app on http://127.0.0.1:${PORT}`))
