import { isRecord, safeJsonParse, type JsonRecord } from './json.js'
import type { ModelCallCodec, RequestRewrite } from './types.js'

/**
 * A codec's `rewriteRequest` built from an edit of the parsed body: `edit` changes
 * the body in place (and returns the new URL when the family names the model in
 * the path); a body that is not a JSON object, or an edit that changed nothing,
 * is `undefined`.
 * @example
 * rewriteRequest: jsonRewrite((body, rw) => {
 *   if (rw.model !== undefined) body.model = rw.model
 * })
 */
export function jsonRewrite(edit: (body: JsonRecord, rw: RequestRewrite, url: URL) => URL | void): ModelCallCodec['rewriteRequest'] {
  return (url, text, rw) => {
    const body = safeJsonParse(text)
    if (!isRecord(body)) return undefined
    const before = JSON.stringify(body)
    const next = edit(body, rw, new URL(url.href)) ?? url
    const after = JSON.stringify(body)
    if (after === before && next.href === url.href) return undefined
    return { url: next, text: after }
  }
}

/**
 * The edit most families share: the model id in the body's `model` field.
 * @example
 * setBodyModel(body, { model: 'gpt-4.1-mini' }) // body.model === 'gpt-4.1-mini'
 */
export function setBodyModel(body: JsonRecord, rw: RequestRewrite): void {
  if (rw.model !== undefined) body.model = rw.model
}
