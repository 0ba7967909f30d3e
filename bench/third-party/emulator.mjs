/**
 * A deterministic provider emulator for measuring fluxlab on suites nobody wrote for it.
 *
 * It speaks the wire formats of OpenAI Chat Completions and Responses, Anthropic Messages, Gemini
 * generateContent and OpenAI embeddings, streaming (SSE, one write per event) and not. It is not a
 * model: it answers every request from a small rule, so a suite records against it the way it
 * would against a live provider, with real tool loops and real streams.
 * - tools offered and no tool result yet: call the tool whose name best matches the last user text,
 *   with arguments built from its JSON schema (enum values and numbers taken from that text);
 * - otherwise: text that greets, echoes every user turn and every tool result.
 *
 * Used with fluxlab's upstream map: `FLUX_UPSTREAM=api.openai.com=http://127.0.0.1:PORT,…`.
 * Run: `node bench/third-party/emulator.mjs [port]`. Listens on 127.0.0.1 only.
 */
import { createHash } from 'node:crypto'
import { createServer } from 'node:http'

// ─── the rule ────────────────────────────────────────────────────────────────

/** @typedef {{ role: 'user' | 'assistant' | 'tool' | 'system', text: string }} Turn */
/** @typedef {{ name: string, description?: string, schema?: any }} Tool */

/** @param {Turn[]} turns @param {Tool[]} tools */
function decide(turns, tools, json) {
  const sawToolResult = turns.some((t) => t.role === 'tool')
  const lastUser = [...turns].reverse().find((t) => t.role === 'user')?.text ?? ''
  if (tools.length > 0 && !sawToolResult) {
    const tool = pickTool(tools, lastUser)
    return { kind: 'tool', name: tool.name, args: argsFor(tool.schema, lastUser), id: callId(tool.name, lastUser) }
  }
  const users = turns.filter((t) => t.role === 'user').map((t) => t.text)
  const results = turns.filter((t) => t.role === 'tool').map((t) => t.text)
  const text = [`Hello! You said: ${users.join(' / ')}`, ...results.map((r) => `Tool result: ${r}`), 'Done.'].join('\n')
  if (json) return { kind: 'text', text: jsonAnswer(turns, json, lastUser) ?? JSON.stringify({ text }) }
  return { kind: 'text', text }
}

// JSON mode (response_format json_object / json_schema): a JSON object. With a schema, one built from it as tool
// arguments are; else the first JSON template the prompt shows (`{"score": <number>, "reasoning": "<…>"}`), its
// placeholders filled: <number> 1, <boolean> false, a quoted <…> "Done.".
function jsonAnswer(turns, json, lastUser) {
  if (json.schema) return JSON.stringify(argsFor(json.schema, lastUser))
  for (const t of turns) {
    const m = t.text.match(/\{[^{}]*<[^{}]*\}/)
    if (!m) continue
    const filled = m[0].replace(/"<[^>]*>"/g, '"Done."').replace(/<number>/g, '1').replace(/<boolean>/g, 'false').replace(/<[^>]*>/g, 'null')
    try { JSON.parse(filled); return filled } catch {}
  }
  return undefined
}

function pickTool(tools, text) {
  const words = new Set(text.toLowerCase().match(/[a-z]+/g) ?? [])
  let best = tools[0]
  let bestScore = -1
  for (const tool of tools) {
    const parts = `${tool.name} ${tool.description ?? ''}`.toLowerCase().match(/[a-z]+/g) ?? []
    const score = parts.filter((p) => p.length > 3 && words.has(p)).length
    if (score > bestScore) { best = tool; bestScore = score }
  }
  return best
}

function argsFor(schema, text) {
  const out = {}
  const props = schema?.properties ?? {}
  const required = new Set(schema?.required ?? Object.keys(props))
  const numbers = (text.match(/-?\d+(\.\d+)?/g) ?? []).map(Number)
  const place = text.match(/\b(?:in|for|of|at)\s+([A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)/)?.[1]
  const lower = text.toLowerCase()
  for (const [key, prop] of Object.entries(props)) {
    if (!required.has(key)) continue
    const type = Array.isArray(prop.type) ? prop.type[0] : prop.type
    if (Array.isArray(prop.enum)) {
      out[key] = prop.enum.find((v) => lower.includes(String(v).toLowerCase().slice(0, 5))) ?? prop.enum[0]
    } else if (type === 'number' || type === 'integer') {
      out[key] = numbers.length > 0 ? numbers.shift() : 1
    } else if (type === 'boolean') {
      out[key] = true
    } else if (type === 'array') {
      out[key] = []
    } else if (type === 'object') {
      out[key] = argsFor(prop, text)
    } else {
      out[key] = place ?? text.slice(0, 40)
    }
  }
  return out
}

const callId = (name, text) => createHash('sha256').update(`${name}\n${text}`).digest('hex').slice(0, 24)
const tokens = (s) => Math.max(1, Math.ceil(s.length / 4))
const pieces = (s, n = 12) => { const out = []; for (let i = 0; i < s.length; i += n) out.push(s.slice(i, i + n)); return out.length ? out : [''] }
const textOf = (content) => typeof content === 'string' ? content
  : Array.isArray(content) ? content.map((p) => typeof p === 'string' ? p : p.text ?? (p.type === 'tool_result' ? textOf(p.content) : '')).join('')
  : content == null ? '' : JSON.stringify(content)

// ─── wire formats ────────────────────────────────────────────────────────────

/** @returns {{ turns: Turn[], tools: Tool[] }} */
function fromChat(body) {
  const turns = []
  for (const m of body.messages ?? []) turns.push({ role: m.role === 'function' ? 'tool' : m.role === 'developer' ? 'system' : m.role, text: textOf(m.content) })
  const tools = (body.tools ?? []).filter((t) => t.function).map((t) => ({ name: t.function.name, description: t.function.description, schema: t.function.parameters }))
  return { turns, tools }
}

function fromResponses(body) {
  const turns = []
  if (body.instructions) turns.push({ role: 'system', text: body.instructions })
  const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input ?? []
  for (const item of input) {
    if (item.type === 'function_call_output') turns.push({ role: 'tool', text: textOf(item.output) })
    else if (item.type === 'function_call') turns.push({ role: 'assistant', text: '' })
    else if (item.role) turns.push({ role: item.role === 'developer' ? 'system' : item.role, text: textOf(item.content) })
  }
  const tools = (body.tools ?? []).filter((t) => t.type === 'function').map((t) => ({ name: t.name, description: t.description, schema: t.parameters }))
  return { turns, tools }
}

function fromAnthropic(body) {
  const turns = []
  for (const m of body.messages ?? []) {
    const blocks = Array.isArray(m.content) ? m.content : [{ type: 'text', text: m.content }]
    const results = blocks.filter((b) => b.type === 'tool_result')
    if (results.length > 0) for (const r of results) turns.push({ role: 'tool', text: textOf(r.content) })
    else turns.push({ role: m.role, text: textOf(blocks.filter((b) => b.type === 'text')) })
  }
  const tools = (body.tools ?? []).filter((t) => t.input_schema).map((t) => ({ name: t.name, description: t.description, schema: t.input_schema }))
  return { turns, tools }
}

function fromGemini(body) {
  const turns = []
  for (const c of body.contents ?? []) {
    const parts = c.parts ?? []
    const results = parts.filter((p) => p.functionResponse)
    if (results.length > 0) for (const p of results) turns.push({ role: 'tool', text: JSON.stringify(p.functionResponse.response ?? {}) })
    else turns.push({ role: c.role === 'model' ? 'assistant' : 'user', text: parts.map((p) => p.text ?? '').join('') })
  }
  const tools = (body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []).map((f) => ({ name: f.name, description: f.description, schema: f.parameters ?? f.parametersJsonSchema }))
  return { turns, tools }
}

function chat(body, d, send) {
  const model = body.model ?? 'gpt-4o-mini'
  const id = `chatcmpl-${callId(model, JSON.stringify(d))}`
  const prompt = tokens(JSON.stringify(body.messages ?? []))
  const completion = tokens(d.kind === 'text' ? d.text : JSON.stringify(d.args))
  const usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion }
  const finish = d.kind === 'tool' ? 'tool_calls' : 'stop'
  const call = d.kind === 'tool' ? { id: `call_${d.id}`, type: 'function', function: { name: d.name, arguments: JSON.stringify(d.args) } } : undefined
  if (!body.stream) {
    return send.json({ id, object: 'chat.completion', created: 1764547200, model, choices: [{ index: 0, message: { role: 'assistant', content: d.kind === 'text' ? d.text : null, ...(call ? { tool_calls: [call] } : {}) }, finish_reason: finish }], usage })
  }
  const chunk = (delta, finish_reason = null, extra = {}) => ({ id, object: 'chat.completion.chunk', created: 1764547200, model, choices: [{ index: 0, delta, finish_reason }], ...extra })
  const events = [chunk({ role: 'assistant', content: d.kind === 'text' ? '' : null })]
  if (call) {
    events.push(chunk({ tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: d.name, arguments: '' } }] }))
    for (const p of pieces(call.function.arguments)) events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: p } }] }))
  } else {
    for (const p of pieces(d.text)) events.push(chunk({ content: p }))
  }
  events.push(chunk({}, finish))
  if (body.stream_options?.include_usage) events.push({ id, object: 'chat.completion.chunk', created: 1764547200, model, choices: [], usage })
  return send.sse(events.map((e) => ({ data: e })).concat([{ data: '[DONE]' }]))
}

function responses(body, d, send) {
  const model = body.model ?? 'gpt-4o-mini'
  const id = `resp_${callId(model, JSON.stringify(d))}`
  const input = tokens(JSON.stringify(body.input ?? ''))
  const output = tokens(d.kind === 'text' ? d.text : JSON.stringify(d.args))
  const usage = { input_tokens: input, input_tokens_details: { cached_tokens: 0 }, output_tokens: output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: input + output }
  const item = d.kind === 'tool'
    ? { id: `fc_${d.id}`, type: 'function_call', status: 'completed', call_id: `call_${d.id}`, name: d.name, arguments: JSON.stringify(d.args) }
    : { id: `msg_${callId('m', d.text)}`, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: d.text, annotations: [] }] }
  const base = { id, object: 'response', created_at: 1764547200, model, instructions: body.instructions ?? null, tools: body.tools ?? [], parallel_tool_calls: true, tool_choice: 'auto', temperature: body.temperature ?? 1, top_p: 1, text: { format: { type: 'text' } }, metadata: {}, error: null, incomplete_details: null }
  const done = { ...base, status: 'completed', output: [item], usage }
  if (!body.stream) return send.json({ ...done, output_text: d.kind === 'text' ? d.text : '' })
  let seq = 0
  const ev = (type, rest) => ({ event: type, data: { type, sequence_number: seq++, ...rest } })
  const events = [ev('response.created', { response: { ...base, status: 'in_progress', output: [], usage: null } }), ev('response.in_progress', { response: { ...base, status: 'in_progress', output: [], usage: null } })]
  if (d.kind === 'tool') {
    events.push(ev('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', arguments: '' } }))
    for (const p of pieces(item.arguments)) events.push(ev('response.function_call_arguments.delta', { item_id: item.id, output_index: 0, delta: p }))
    events.push(ev('response.function_call_arguments.done', { item_id: item.id, output_index: 0, arguments: item.arguments }))
  } else {
    events.push(ev('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } }))
    events.push(ev('response.content_part.added', { item_id: item.id, output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }))
    for (const p of pieces(d.text)) events.push(ev('response.output_text.delta', { item_id: item.id, output_index: 0, content_index: 0, delta: p }))
    events.push(ev('response.output_text.done', { item_id: item.id, output_index: 0, content_index: 0, text: d.text }))
    events.push(ev('response.content_part.done', { item_id: item.id, output_index: 0, content_index: 0, part: item.content[0] }))
  }
  events.push(ev('response.output_item.done', { output_index: 0, item }))
  events.push(ev('response.completed', { response: done }))
  return send.sse(events)
}

function anthropic(body, d, send) {
  const model = body.model ?? 'claude-sonnet-4-0'
  const id = `msg_${callId(model, JSON.stringify(d))}`
  const usage = { input_tokens: tokens(JSON.stringify(body.messages ?? [])), output_tokens: tokens(d.kind === 'text' ? d.text : JSON.stringify(d.args)) }
  const block = d.kind === 'tool' ? { type: 'tool_use', id: `toolu_${d.id}`, name: d.name, input: d.args } : { type: 'text', text: d.text }
  const stop = d.kind === 'tool' ? 'tool_use' : 'end_turn'
  if (!body.stream) return send.json({ id, type: 'message', role: 'assistant', model, content: [block], stop_reason: stop, stop_sequence: null, usage })
  const ev = (type, rest) => ({ event: type, data: { type, ...rest } })
  const events = [ev('message_start', { message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: usage.input_tokens, output_tokens: 1 } } })]
  if (d.kind === 'tool') {
    events.push(ev('content_block_start', { index: 0, content_block: { ...block, input: {} } }))
    for (const p of pieces(JSON.stringify(d.args))) events.push(ev('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: p } }))
  } else {
    events.push(ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }))
    for (const p of pieces(d.text)) events.push(ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: p } }))
  }
  events.push(ev('content_block_stop', { index: 0 }))
  events.push(ev('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }))
  events.push(ev('message_stop', {}))
  return send.sse(events)
}

function gemini(body, d, streaming, model, send) {
  const part = d.kind === 'tool' ? { functionCall: { name: d.name, args: d.args } } : { text: d.text }
  const prompt = tokens(JSON.stringify(body.contents ?? []))
  const out = tokens(d.kind === 'text' ? d.text : JSON.stringify(d.args))
  const usageMetadata = { promptTokenCount: prompt, candidatesTokenCount: out, totalTokenCount: prompt + out }
  const whole = { candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }], usageMetadata, modelVersion: model, responseId: callId(model, JSON.stringify(d)) }
  if (!streaming) return send.json(whole)
  if (d.kind === 'tool') return send.sse([{ data: whole }])
  const parts = pieces(d.text, 24)
  return send.sse(parts.map((p, i) => ({ data: { candidates: [{ content: { role: 'model', parts: [{ text: p }] }, ...(i === parts.length - 1 ? { finishReason: 'STOP' } : {}), index: 0 }], usageMetadata, modelVersion: model, responseId: whole.responseId } })))
}

function embeddings(body, send) {
  const inputs = Array.isArray(body.input) ? body.input : [body.input]
  const dims = body.dimensions ?? 8
  const data = inputs.map((text, index) => {
    const h = createHash('sha256').update(String(text)).digest()
    return { object: 'embedding', index, embedding: Array.from({ length: dims }, (_, i) => (h[i % 32] - 128) / 128) }
  })
  const t = tokens(JSON.stringify(inputs))
  return send.json({ object: 'list', data, model: body.model ?? 'text-embedding-3-small', usage: { prompt_tokens: t, total_tokens: t } })
}

// A 1×1 PNG, and bytes that are not UTF-8 (as an MP3 frame is not).
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='
const AUDIO = Buffer.from([0xff, 0xfb, 0x90, 0x64, 0x00, 0x0f, 0xf0, 0x00, 0x00, 0x69, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x0d, 0x20, 0x00, 0x00, 0x01])
const VOICES = new Set(['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'nova', 'onyx', 'sage', 'shimmer', 'verse'])

function media(path, body, send, raw) {
  if (path.endsWith('/images/generations') || path.endsWith('/images/edits')) {
    const n = body.n ?? 1
    return send.json({ created: 1764547200, data: Array.from({ length: n }, () => ({ b64_json: PNG, revised_prompt: body.prompt })), usage: { input_tokens: tokens(body.prompt ?? ''), output_tokens: 272, total_tokens: tokens(body.prompt ?? '') + 272 } })
  }
  if (path.endsWith('/audio/speech')) {
    if (!VOICES.has(body.voice)) return send.json({ error: { message: `Invalid value for 'voice': ${body.voice}`, type: 'invalid_request_error', param: 'voice', code: 'invalid_value' } }, 400)
    if (String(body.input ?? '').length > 4096) return send.json({ error: { message: 'input is longer than 4096 characters', type: 'invalid_request_error', param: 'input', code: 'string_above_max_length' } }, 400)
    return send.bytes(AUDIO, 'audio/mpeg')
  }
  if (path.endsWith('/audio/transcriptions') || path.endsWith('/audio/translations')) {
    return send.json({ text: `Transcribed ${raw.length} bytes.`, usage: { type: 'duration', seconds: 1 } })
  }
  return undefined
}

function geminiMedia(body, kind, send) {
  if (kind === 'predict') return send.json({ predictions: Array.from({ length: body.parameters?.sampleCount ?? 1 }, () => ({ bytesBase64Encoded: PNG, mimeType: 'image/png' })) })
  const modalities = body.generationConfig?.responseModalities ?? body.config?.responseModalities ?? []
  if (!modalities.map((m) => String(m).toUpperCase()).includes('AUDIO')) return undefined
  return send.json({ candidates: [{ content: { role: 'model', parts: [{ inlineData: { mimeType: 'audio/L16;codec=pcm;rate=24000', data: AUDIO.toString('base64') } }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 20, totalTokenCount: 25 } })
}

// ─── the server ──────────────────────────────────────────────────────────────

/**
 * Starts the emulator on 127.0.0.1.
 * @param {number} [port]
 * @returns {Promise<{ url: string, requests: () => number, close: () => Promise<void> }>}
 */
export async function startEmulator(port = 0) {
  let count = 0
  const server = createServer((req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', async () => {
      count++
      const url = new URL(req.url ?? '/', 'http://local')
      let body = {}
      try { body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {} } catch { /* not JSON */ }
      const raw = Buffer.concat(chunks)
      const send = {
        bytes: (bytes, type) => { res.writeHead(200, { 'content-type': type }); res.end(bytes); return true },
        json: (value, status = 200) => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(value)); return true },
        sse: async (events) => {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
          for (const e of events) {
            res.write(`${e.event ? `event: ${e.event}\n` : ''}data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`)
            await new Promise((r) => setImmediate(r))
          }
          res.end()
        },
      }
      const path = url.pathname.replace(/^\/openai(?=\/)/, '')
      if (req.method === 'GET' && /\/models$/.test(path)) return send.json({ object: 'list', data: [{ id: 'gpt-4o-mini', object: 'model', owned_by: 'emulator' }] })
      if (req.method !== 'POST') return send.json({ error: { message: `emulator: nothing at ${req.method} ${url.pathname}` } }, 404)
      const answered = media(path, body, send, raw)
      if (answered !== undefined) return answered
      if (path.endsWith('/chat/completions')) { const c = fromChat(body); const rf = body.response_format; return chat(body, decide(c.turns, c.tools, rf && (rf.type === 'json_object' || rf.type === 'json_schema') ? { schema: rf.json_schema?.schema } : undefined), send) }
      if (path.endsWith('/responses')) { const c = fromResponses(body); return responses(body, decide(c.turns, c.tools), send) }
      if (path.endsWith('/embeddings')) return embeddings(body, send)
      if (path.endsWith('/v1/messages')) { const c = fromAnthropic(body); return anthropic(body, decide(c.turns, c.tools), send) }
      const g = path.match(/\/models\/([^/:]+):(generateContent|streamGenerateContent|predict)$/)
      if (g && geminiMedia(body, g[2], send) !== undefined) return
      if (g) { const c = fromGemini(body); return gemini(body, decide(c.turns, c.tools), g[2] === 'streamGenerateContent', g[1], send) }
      return send.json({ error: { message: `emulator: nothing at ${req.method} ${url.pathname}` } }, 404)
    })
  })
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests: () => count,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }),
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const e = await startEmulator(Number(process.argv[2] ?? 0))
  console.log(e.url)
}
