// The agent over node:http: the app posts to chat completions itself (compat/shared/src/raw-agent.ts).
import { request } from 'node:http'
import { rawAgent } from './raw-agent.js'

export const { client, createClient, ask } = rawAgent((url, body, headers) =>
  new Promise<string>((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => (text += d))
      res.on('end', () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`provider answered ${res.statusCode}: ${text}`))))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  }))
