// The agent over fetch: the app posts to chat completions itself (compat/shared/src/raw-agent.ts).
import { rawAgent } from './raw-agent.js'

export const { client, createClient, ask } = rawAgent(async (url, body, headers) => {
  const res = await fetch(url, { method: 'POST', body, headers })
  if (!res.ok) throw new Error(`provider answered ${res.status}: ${await res.text()}`)
  return res.text()
})
