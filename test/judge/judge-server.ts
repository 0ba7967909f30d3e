/**
 * A local judge on 127.0.0.1 speaking all three judge APIs, grading by a simple rule:
 * PASS when a word of the criterion (4+ letters) appears in the judged text. So PASS and
 * FAIL both go through the real HTTP path, for every family.
 *
 * - OpenAI-compatible: POST /v1/chat/completions      (baseURL `${url}/v1`)
 * - Anthropic:         POST /v1/messages              (baseURL `${url}`)
 * - Gemini:            POST /v1beta/models/<m>:generateContent (baseURL `${url}`)
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export type Family = 'openai' | 'anthropic' | 'gemini'

/** How the server answers the next requests. */
export type Behaviour =
  | { kind: 'grade' }
  /** A 200 whose content is not a verdict; `text` is the assistant text. */
  | { kind: 'malformed'; text: string }
  /** An HTTP error with this status and body. */
  | { kind: 'status'; status: number; body: string; times?: number }
  /** Never answer. */
  | { kind: 'hang' }

export interface JudgeRequest {
  family: Family
  path: string
  headers: IncomingHttpHeaders
  body: any
  criterion: string
  text: string
}

export interface JudgeServer {
  url: string
  /** Base URL for a family, as the rubric's `baseURL` / env var takes it. */
  baseURL(family: Family): string
  requests: JudgeRequest[]
  readonly hits: number
  behaviour: Behaviour
  close(): Promise<void>
}

/** The rule: PASS when some 4+ letter word of the criterion is in the text (case-insensitive). */
export function grade(criterion: string, text: string): { verdict: 'PASS' | 'FAIL'; rationale: string; score: number } {
  const words = [...new Set(criterion.toLowerCase().match(/[a-z]{4,}/g) ?? [])]
  const found = words.filter((w) => new RegExp(`\\b${w}\\b`, 'i').test(text))
  const score = words.length ? Math.round((found.length / words.length) * 100) / 100 : 0
  return found.length
    ? { verdict: 'PASS', rationale: `The text mentions ${found.map((w) => `"${w}"`).join(', ')}.`, score }
    : { verdict: 'FAIL', rationale: `The text mentions none of ${words.map((w) => `"${w}"`).join(', ')}.`, score }
}

const between = (s: string, tag: string) => new RegExp(`<${tag}>\\n([\\s\\S]*?)\\n</${tag}>`).exec(s)?.[1] ?? ''

export async function startJudgeServer(): Promise<JudgeServer> {
  const requests: JudgeRequest[] = []
  const sockets = new Set<import('node:net').Socket>()
  const srv: JudgeServer = {
    url: '',
    baseURL: (f) => (f === 'openai' ? `${srv.url}/v1` : srv.url),
    requests,
    get hits() {
      return requests.length
    },
    behaviour: { kind: 'grade' },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        for (const s of sockets) s.destroy()
      }),
  }
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const raw = Buffer.concat(chunks).toString('utf8')
    const body = raw ? JSON.parse(raw) : {}
    const path = req.url ?? '/'
    const family: Family | undefined = path.endsWith('/chat/completions')
      ? 'openai'
      : path.endsWith('/v1/messages')
        ? 'anthropic'
        : /\/v1beta\/models\/[^/]+:generateContent$/.test(path)
          ? 'gemini'
          : undefined
    if (!family) return send(res, 404, { error: { message: `judge-server: no route for ${path}` } })
    const user =
      family === 'openai'
        ? body.messages?.find((m: any) => m.role === 'user')?.content
        : family === 'anthropic'
          ? body.messages?.[0]?.content
          : body.contents?.[0]?.parts?.[0]?.text
    const criterion = between(String(user ?? ''), 'criterion')
    const text = between(String(user ?? ''), 'text')
    requests.push({ family, path, headers: req.headers, body, criterion, text })
    const b = srv.behaviour
    if (b.kind === 'hang') return
    if (b.kind === 'status') {
      if (b.times !== undefined && --b.times <= 0) srv.behaviour = { kind: 'grade' }
      res.writeHead(b.status, { 'content-type': 'application/json' }).end(b.body)
      return
    }
    const scored =
      family === 'openai'
        ? String(body.messages?.[0]?.content).includes('"score"')
        : family === 'anthropic'
          ? 'score' in (body.tools?.[0]?.input_schema?.properties ?? {})
          : 'score' in (body.generationConfig?.responseSchema?.properties ?? {})
    const g = grade(criterion, text)
    const verdict = scored ? g : { verdict: g.verdict, rationale: g.rationale }
    const content = b.kind === 'malformed' ? b.text : JSON.stringify(verdict)
    if (family === 'openai')
      return send(res, 200, {
        id: 'chatcmpl-judge1',
        object: 'chat.completion',
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 },
      })
    if (family === 'anthropic')
      return send(res, 200, {
        id: 'msg_judge1',
        type: 'message',
        role: 'assistant',
        model: body.model,
        content:
          b.kind === 'malformed' ? [{ type: 'text', text: content }] : [{ type: 'tool_use', id: 'toolu_judge1', name: body.tools[0].name, input: verdict }],
        stop_reason: b.kind === 'malformed' ? 'end_turn' : 'tool_use',
        usage: { input_tokens: 120, output_tokens: 30 },
      })
    return send(res, 200, {
      candidates: [{ content: { role: 'model', parts: [{ text: content }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 120, candidatesTokenCount: 30, totalTokenCount: 150 },
      modelVersion: path.split('/models/')[1].split(':')[0],
    })
  })
  server.on('connection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  srv.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return srv
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text)
}
