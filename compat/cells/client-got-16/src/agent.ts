// The agent over got: the app posts to chat completions itself (compat/shared/src/raw-agent.ts).
import got from 'got'
import { rawAgent } from './raw-agent.js'

export const { client, createClient, ask } = rawAgent(async (url, body, headers) => (await got.post(url, { body, headers, retry: { limit: 0 } })).body)
