// The cell's app: an Express 5 server with the chat page, GET /api/chat (streams an OpenAI answer to the page as
// server-sent events, with one HTTP tool call in between) and POST /ask (the plain form post of GET /form, answered with a page).
// Nothing here knows fluxlab: it runs as `npx fluxlab serve -- npm run serve` (playwright.config.ts).
import express from 'express'
import OpenAI from 'openai'

const PORT = Number(process.env.PORT ?? 3220)
const PROVIDER_URL = process.env.PROVIDER_URL ?? 'http://127.0.0.1:9'
// Built at import, as apps do: it reads OPENAI_API_KEY from the environment.
const openai = new OpenAI({ baseURL: `${PROVIDER_URL}/v1` })

const tools = [{ type: 'function', function: { name: 'get_capital', description: 'The capital of a country', parameters: { type: 'object', properties: { country: { type: 'string' } }, required: ['country'], additionalProperties: false }, strict: true } }]

const page = (body) => `<!doctype html>
<html><head><meta charset="utf-8"><title>Capital chat</title></head>
<body>
  <h1>Capital chat</h1>
  ${body}
</body></html>`

const CHAT = page(`<form id="ask"><input id="q" name="q" aria-label="question"><button>Ask</button></form>
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
  </script>`)

const FORM = page('<form method="post" action="/ask"><input name="q" aria-label="question"><button>Ask</button></form>')

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

/** The question answered: model, tool, model; each text delta to `onText`. */
async function answer(question, onText) {
  const messages = [{ role: 'user', content: question }]
  const calls = await turn(messages, onText)
  messages.push({ role: 'assistant', content: null, tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } })) })
  for (const c of calls) messages.push({ role: 'tool', tool_call_id: c.id, content: await getCapital(JSON.parse(c.args).country) })
  await turn(messages, onText)
}

const app = express()
app.use(express.urlencoded({ extended: false }))
app.get('/', (_req, res) => void res.type('html').send(CHAT))
app.get('/form', (_req, res) => void res.type('html').send(FORM))
app.get('/api/health', (_req, res) => void res.send('ok'))
app.get('/api/chat', async (req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' })
  try {
    await answer(String(req.query.q ?? ''), (text) => res.write(`data: ${JSON.stringify({ delta: text })}\n\n`))
    res.end('event: done\ndata: {}\n\n')
  } catch (e) {
    res.end(`event: failed\ndata: ${JSON.stringify(String(e?.message ?? e))}\n\n`)
  }
})
app.post('/ask', async (req, res) => {
  let text = ''
  await answer(String(req.body.q ?? ''), (t) => (text += t))
  res.type('html').send(page(`<p id="answer" data-done="yes">${text.replace(/[<&]/g, (c) => (c === '<' ? '&lt;' : '&amp;'))}</p>`))
})
app.listen(PORT, '127.0.0.1', () => console.log(`express app on http://127.0.0.1:${PORT}`))
