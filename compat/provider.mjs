// The local provider the compatibility cells record against, on 127.0.0.1 (never a public address).
// Plain JS with no dependency, so the harness runs it next to any cell:
// - `POST /v1/chat/completions` streams real recorded OpenAI chat-completions SSE (provider-traffic.json):
//   turn 1 asks for `get_capital`, turn 2 (the request carries the tool result) answers. The country of the
//   prompt is swapped into the recorded bytes, so each test gets its own answer.
// - `POST /v1/messages` streams real recorded Anthropic messages SSE (test/fixtures/traffic/anthropic/
//   tool_use_response.txt, a get_weather(Paris) tool call): turn 1 is that stream with the tool renamed get_capital
//   and its input the prompt's country; turn 2 (the request carries a tool_result) is the same stream's text block
//   with the answer, and stop_reason end_turn.
// - `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` streams real recorded Gemini SSE
//   (provider-traffic-gemini.json, from test/fixtures/traffic/gemini/test_google_model_iter_stream.yaml): turn 1 is its get_capital(France) call with the prompt's
//   country; turn 2 (the request carries a functionResponse) is its final text stream with the answer.
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

const ANTHROPIC = readFileSync(new URL('../test/fixtures/traffic/anthropic/tool_use_response.txt', import.meta.url), 'utf8')
const ANTHROPIC_SWAPS = [
  ['"name":"get_weather"', '"name":"get_capital"'],
  ["\"text\":\"'ll check the current weather in Paris for you.\"", "\"text\":\"'ll look up the capital of {country} for you.\""],
  ['"partial_json":"{\\"locati"', '"partial_json":"{\\"countr"'],
  ['"partial_json":"on\\": \\"P"', '"partial_json":"y\\": \\""'],
  ['"partial_json":"ar"', '"partial_json":"{country}"'],
  ['"partial_json":"is\\"}"', '"partial_json":"\\"}"'],
]
for (const [from] of [...ANTHROPIC_SWAPS, ['"stop_reason":"tool_use"'], ['"text":"I"']])
  if (!ANTHROPIC.includes(from)) throw new Error(`compat provider: the recorded Anthropic traffic no longer has ${from}`)

function anthropicTurn(turn, country) {
  if (turn === 1) return ANTHROPIC_SWAPS.reduce((body, [from, to]) => body.split(from).join(to.replace('{country}', country)), ANTHROPIC)
  // The answer: the recorded text block alone (its first delta carrying the answer), then the message's end.
  return ANTHROPIC.split('\n\n')
    .filter((ev) => !/"index":1|"text":"'ll check/.test(ev))
    .map((ev) => ev.replace('"text":"I"', `"text":"The capital of ${country === 'UK' ? 'the UK' : country} is ${CAPITALS[country]}."`).replace('"stop_reason":"tool_use"', '"stop_reason":"end_turn"'))
    .join('\n\n')
}

const GEMINI_PATH = /^\/v1beta\/models\/[^/:]+:streamGenerateContent$/
const GEMINI = JSON.parse(readFileSync(new URL('./provider-traffic-gemini.json', import.meta.url), 'utf8')).exchanges
const GEMINI_SWAPS = [
  [0, '"args": {"country": "France"}', '"args": {"country": "{country}"}'],
  [1, '"text": "The temperature in Paris"', '"text": "The capital of {the country}"'],
  [1, '"text": " is 30°C.\\n"', '"text": " is {capital}."'],
]
for (const [i, from] of GEMINI_SWAPS) if (!GEMINI[i].body.includes(from)) throw new Error(`compat provider: the recorded Gemini traffic no longer has ${from}`)

function geminiTurn(turn, country) {
  const fill = (s) => s.replace('{the country}', country === 'UK' ? 'the UK' : country).replace('{capital}', CAPITALS[country]).replace('{country}', country)
  const ex = GEMINI[turn - 1]
  return { ...ex, body: GEMINI_SWAPS.filter(([i]) => i === turn - 1).reduce((body, [, from, to]) => body.split(from).join(fill(to)), ex.body) }
}

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
        // A system message (an agent's instructions) is not a turn.
        if (!CAPITALS[country] || parsed.messages.filter((m) => m.role !== 'system').length > 3)
          return json(res, 400, { error: { message: `compat provider: no recorded turn for ${JSON.stringify(prompt)}` } })
        void stream(res, forCountry(turn === 1 ? TOOL_TURN : ANSWER_TURN, country))
        return
      }
      if (req.method === 'POST' && url.pathname === '/v1/messages') {
        const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'))
        const first = parsed.messages[0]?.content
        const prompt = typeof first === 'string' ? first : (first?.find?.((b) => b.type === 'text')?.text ?? '')
        const country = /capital of (?:the )?(\w+)/.exec(prompt)?.[1] ?? ''
        const turn = parsed.messages.some((m) => Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_result')) ? 2 : 1
        if (!CAPITALS[country] || parsed.messages.length > 3)
          return json(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: `compat provider: no recorded turn for ${JSON.stringify(prompt)}` } })
        void stream(res, { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8', 'request-id': 'req_compat' }, body: anthropicTurn(turn, country) })
        return
      }
      if (req.method === 'POST' && GEMINI_PATH.test(url.pathname) && url.searchParams.get('alt') === 'sse') {
        const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'))
        const prompt = parsed.contents?.[0]?.parts?.find?.((p) => typeof p.text === 'string')?.text ?? ''
        const country = /capital of (?:the )?(\w+)/.exec(prompt)?.[1] ?? ''
        const turn = parsed.contents.some((c) => c.parts?.some((p) => p.functionResponse)) ? 2 : 1
        if (!CAPITALS[country] || parsed.contents.length > 3)
          return json(res, 400, { error: { code: 400, status: 'INVALID_ARGUMENT', message: `compat provider: no recorded turn for ${JSON.stringify(prompt)}` } })
        void stream(res, geminiTurn(turn, country))
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
  for (const piece of ex.body.split(/(?<=\r?\n\r?\n)/).filter(Boolean)) {
    if (res.destroyed) return
    res.write(piece)
    await nextTurn()
  }
  res.end()
}
