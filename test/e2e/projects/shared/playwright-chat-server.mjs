// A chat app nobody wrote for fluxlab: GET /api/ask?q=… asks OpenAI (streamed, with one HTTP tool) and answers the text.
// The server.mjs of test/e2e/projects/playwright-subdir and playwright-counts (test/e2e/support/project.ts copies it in).
import { createServer } from 'node:http'
import OpenAI from 'openai'

const PORT = Number(process.env.PORT ?? 3210)
const GEO_URL = process.env.GEO_URL ?? 'http://127.0.0.1:4010'
// Built at import, as apps do: without OPENAI_API_KEY it throws here, and the server never starts.
const openai = new OpenAI()

const tools = [{ type: 'function', function: { name: 'get_capital', description: 'The capital of a country', parameters: { type: 'object', properties: { country: { type: 'string' } }, required: ['country'], additionalProperties: false }, strict: true } }]

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Capital chat</title></head>
<body>
  <h1>Capital chat</h1>
  <form id="ask"><input id="q" name="q" aria-label="question"><button>Ask</button></form>
  <p id="answer"></p>
  <script>
    document.getElementById('ask').addEventListener('submit', async (e) => {
      e.preventDefault()
      const res = await fetch('/api/ask?q=' + encodeURIComponent(document.getElementById('q').value))
      document.getElementById('answer').textContent = await res.text()
    })
  </script>
</body></html>`

async function turn(messages) {
  const stream = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true, tools })
  let text = ''
  const calls = []
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
  return { text, calls }
}

async function ask(question) {
  const messages = [{ role: 'user', content: question }]
  const first = await turn(messages)
  messages.push({ role: 'assistant', content: null, tool_calls: first.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } })) })
  for (const c of first.calls) {
    const res = await fetch(`${GEO_URL}/geo/capital?country=${encodeURIComponent(JSON.parse(c.args).country)}`)
    messages.push({ role: 'tool', tool_call_id: c.id, content: (await res.json()).capital })
  }
  return (await turn(messages)).text
}

// Under WARM_UP, the server asks once before it listens: a call outside every test's request, in its own scenario.
if (process.env.WARM_UP) await ask('What is the capital of Spain? Use the tool.')

createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://app')
  if (url.pathname === '/') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE)
  if (url.pathname === '/health') return res.writeHead(200).end('ok')
  if (url.pathname === '/api/ask')
    return void ask(url.searchParams.get('q') ?? '').then(
      (text) => res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(text),
      (e) => res.writeHead(500).end(String(e?.message ?? e)),
    )
  res.writeHead(404).end()
}).listen(PORT, '127.0.0.1', () => console.log(`chat app on http://127.0.0.1:${PORT}`))
