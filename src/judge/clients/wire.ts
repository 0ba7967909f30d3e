import { judgeProvider, judgeWire } from '../../providers/registry.js'
import type { JudgeApi, JudgeRequest } from '../../providers/types.js'
import { replySchema, type JudgePrompt } from '../prompt.js'
import type { Rubric } from '../rubric.js'
import { checkReply, parseReplyText, type ReplyCheck } from '../verdict.js'
import type { JudgeEndpoint } from './endpoint.js'

/** The API a model rubric speaks: its `api`, else what its provider speaks. */
const apiOf = (rubric: Rubric): JudgeApi => rubric.api ?? judgeProvider(rubric.provider ?? '').api

/**
 * The HTTP request of one judge question, in the wire format of the rubric's API
 * (built by that family's codec, `src/providers/<family>/judge.ts`).
 * @example
 * judgeRequest(Rubric.model('openai/gpt-4.1-mini'), prompt, { baseURL: 'https://api.openai.com/v1', key }).url
 * // 'https://api.openai.com/v1/chat/completions'
 */
export function judgeRequest(rubric: Rubric, prompt: JudgePrompt, endpoint: JudgeEndpoint): JudgeRequest {
  return judgeWire(apiOf(rubric)).request({
    model: rubric.modelName ?? '',
    baseURL: endpoint.baseURL,
    ...(endpoint.key !== undefined ? { key: endpoint.key } : {}),
    system: prompt.system,
    user: prompt.user,
    schema: replySchema(prompt.threshold !== undefined),
  })
}

/**
 * A 2xx judge reply checked as a verdict: the family's codec finds the reply in its
 * wire format (a structured value or text), then it is checked the same way for every API.
 * @example
 * judgeReply(Rubric.model('openai/gpt-4.1-mini'), { choices: [{ message: { content: '{"verdict":"PASS","rationale":"ok"}' } }] })
 * // { ok: true, reply: { verdict: 'PASS', rationale: 'ok' } }
 */
export function judgeReply(rubric: Rubric, json: unknown): ReplyCheck {
  const answer = judgeWire(apiOf(rubric)).reply(json)
  if (!answer.ok) return answer
  const scored = rubric.threshold !== undefined
  return 'value' in answer ? checkReply(answer.value, scored) : parseReplyText(answer.text, scored)
}
