import type { ProviderFamily } from '../providers/types.js'

/** What a what-if rewrites in each outgoing model request. */
export interface RequestRewrite {
  /** The model id: the body's `model` field (Gemini: the `/models/<id>:` part of the URL). */
  model?: string
  /** The system prompt, in each wire format's own place. */
  instructions?: string
}

const GEMINI_MODEL = /(\/(?:models|tunedModels)\/)([^/:]+)(:[A-Za-z]+)$/

/**
 * Rewrite one model request's URL and body for a family; `undefined` when nothing changes
 * (the request already names that model and carries those instructions).
 * - model: `body.model` (OpenAI Chat/Responses/embeddings, Anthropic), the URL path for Gemini
 * - instructions: Chat's first `system`/`developer` message (added first when there is none),
 *   Responses' `instructions`, Anthropic's `system`, Gemini's `systemInstruction`
 * @example
 * rewriteRequest('openai-chat', url, '{"model":"gpt-4o","messages":[]}', { model: 'gpt-4.1-mini' })
 */
export function rewriteRequest(family: ProviderFamily, url: URL, text: string, rw: RequestRewrite): { url: URL; text: string } | undefined {
  let body: Record<string, unknown>
  try {
    body = JSON.parse(text) as Record<string, unknown>
  } catch {
    return undefined
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined
  const before = JSON.stringify(body)
  let next = new URL(url.href)
  if (rw.model !== undefined) {
    if (family === 'gemini') {
      const path = decodeURIComponent(next.pathname)
      if (GEMINI_MODEL.test(path)) next.pathname = path.replace(GEMINI_MODEL, `$1${rw.model}$3`)
    } else body.model = rw.model
  }
  if (rw.instructions !== undefined) setInstructions(family, body, rw.instructions)
  const after = JSON.stringify(body)
  if (after === before && next.href === url.href) return undefined
  return { url: next, text: after }
}

function setInstructions(family: ProviderFamily, body: Record<string, unknown>, text: string): void {
  switch (family) {
    case 'openai-chat': {
      const messages = Array.isArray(body.messages) ? (body.messages as Array<Record<string, unknown>>) : []
      const sys = messages.find((m) => m && (m.role === 'system' || m.role === 'developer'))
      if (sys) sys.content = text
      else body.messages = [{ role: 'system', content: text }, ...messages]
      return
    }
    case 'openai-responses':
      body.instructions = text
      return
    case 'anthropic':
      body.system = text
      return
    case 'gemini': {
      const prev = body.systemInstruction as { role?: unknown } | undefined
      body.systemInstruction = { ...(prev && typeof prev === 'object' && prev.role ? { role: prev.role } : {}), parts: [{ text }] }
      return
    }
    case 'openai-embeddings':
      return
  }
}
