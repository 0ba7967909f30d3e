import type { JudgePrompt } from '../prompt.js'
import type { Rubric } from '../rubric.js'
import type { ReplyCheck } from '../verdict.js'
import type { JudgeEndpoint } from './endpoint.js'

/** An HTTP request to a judge API. */
export interface WireRequest {
  url: string
  headers: { [name: string]: string | undefined }
  body: unknown
}

/** One judge API family: how to build its request and read its reply. */
export interface WireCall {
  request(rubric: Rubric, prompt: JudgePrompt, endpoint: JudgeEndpoint): WireRequest
  reply(json: unknown, scored: boolean): ReplyCheck
}
