// The agent over axios: the app posts to chat completions itself (compat/shared/src/raw-agent.ts).
import axios from 'axios'
import { rawAgent } from './raw-agent.js'

export const { client, createClient, ask } = rawAgent(async (url, body, headers) => (await axios.post<string>(url, body, { headers, responseType: 'text' })).data)
