// The agent over undici: the app posts to chat completions itself (compat/shared/src/raw-agent.ts).
import { request } from 'undici'
import { rawAgent } from './raw-agent.js'

export const { client, createClient, ask } = rawAgent(async (url, body, headers) => {
  const res = await request(url, { method: 'POST', body, headers })
  const text = await res.body.text()
  if (res.statusCode !== 200) throw new Error(`provider answered ${res.statusCode}: ${text}`)
  return text
})
