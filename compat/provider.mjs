// The local provider the compatibility cells record against, on 127.0.0.1 (never a public address).
// Plain JS with no dependency, so the harness runs it next to any cell:
// - `POST /v1/chat/completions` streams real recorded OpenAI chat-completions SSE (provider-traffic.json):
//   turn 1 asks for `get_capital`, turn 2 (the request carries the tool result) answers. The country of the
//   prompt is swapped into the recorded bytes, so each test gets its own answer.
// - `GET /geo/capital?country=UK` is the app's tool, a non-model host on fluxlab's tool channel.
// Every request is counted, so the harness can tell that replay never reached it.
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { setImmediate as nextTurn } from 'node:timers/promises'

export const CAPITALS = { UK: 'London', France: 'Paris', Japan: 'Tokyo', Italy: 'Rome' }

const { exchanges } = JSON.parse(readFileSync(new URL('./provider-traffic.json', import.meta.url), 'utf8'))
const [TOOL_TURN, ANSWER_TURN] = exchanges
if (!TOOL_TURN.body.includes('"arguments":"UK"') || !ANSWER_TURN.body.includes('"content":" London"'))
  throw new Error('compat provider: the recorded traffic no longer has the bytes it swaps')

function forCountry(ex, country) {
  let body = ex.body
  for (const [from, to] of [
    ['"arguments":"UK"', `"arguments":"${country}"`],
    ['"content":" UK"', `"content":" ${country}"`],
    ['"content":" London"', `"content":" ${CAPITALS[country]}"`],
  ])
    body = body.split(from).join(to)
  return { ...ex, body }
}

/**
 * Start the provider on an ephemeral port.
 * @returns {Promise<{ url: string, hits: () => number, close: () => Promise<void> }>}
 */
export async function startProvider() {
  let hits = 0
  const server = createServer((req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      hits++
      const url = new URL(req.url ?? '/', 'http://local')
      if (req.method === 'GET' && url.pathname === '/geo/capital') {
        const country = url.searchParams.get('country') ?? ''
        const capital = CAPITALS[country]
        return json(res, capital ? 200 : 404, capital ? { country, capital } : { error: `unknown country ${country}` })
      }
      if (req.method === 'POST' && url.pathname === '/v1/chat/completions') {
        const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'))
        const prompt = String(parsed.messages.find((m) => m.role === 'user')?.content ?? '')
        const country = /capital of (?:the )?(\w+)/.exec(prompt)?.[1] ?? ''
        const turn = parsed.messages.some((m) => m.role === 'tool') ? 2 : 1
        // A request it has no turn for is a non-retryable 400, so a wrong cell fails fast.
        if (!CAPITALS[country] || parsed.messages.length > 3)
          return json(res, 400, { error: { message: `compat provider: no recorded turn for ${JSON.stringify(prompt)}` } })
        void stream(res, forCountry(turn === 1 ? TOOL_TURN : ANSWER_TURN, country))
        return
      }
      json(res, 404, { error: { message: `compat provider: nothing at ${req.method} ${req.url}` } })
    })
  })
  await new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    hits: () => hits,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

function json(res, status, body) {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'x-should-retry': 'false', 'content-length': Buffer.byteLength(text) }).end(text)
}

async function stream(res, ex) {
  res.writeHead(ex.status, { ...ex.headers, 'x-request-id': `req_${Math.random().toString(16).slice(2)}`, date: new Date().toUTCString() })
  res.flushHeaders()
  for (const piece of ex.body.split(/(?<=\n\n)/).filter(Boolean)) {
    if (res.destroyed) return
    res.write(piece)
    await nextTurn()
  }
  res.end()
}
