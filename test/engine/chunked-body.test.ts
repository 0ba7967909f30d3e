/**
 * Issue 12: a `node:http` request whose body is written in pieces with no content-length
 * (chunked transfer encoding) records and replays, to a model host and to any other host.
 */
import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { scenario } from 'fluxlab'
import { expect, test } from 'vitest'
import { serve, tempDir, useEngineSandbox } from './helpers.js'

useEngineSandbox()

/** POST `pieces` to `url` with node:http, one write each, and return the response body. */
function post(url: string, pieces: string[]): Promise<string> {
  const u = new URL(url)
  return new Promise((resolve, reject) => {
    const req = request(
      { host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' } },
      (res) => {
        let body = ''
        res.on('data', (c: Buffer) => (body += c))
        res.on('end', () => resolve(body))
      },
    )
    req.on('error', reject)
    for (const p of pieces) req.write(p)
    req.end()
  })
}

test('a chunked node:http request body records and replays, to a model host and to another host', async () => {
  const dir = tempDir()
  const provider = await serve(['openai-chat/openai-text.json'])
  const echo = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c))
    req.on('end', () => res.end(JSON.stringify({ got: body })))
  })
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', () => r()))
  const echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/echo`
  const agent = async () => {
    const answer = JSON.parse(
      await post(`${provider.url}/v1/chat/completions`, ['{"model":"gpt-4o-mini",', '"messages":[{"role":"user","content":"Tell me a joke"}]}']),
    ) as { choices: Array<{ message: { content: string } }> }
    const echoed = JSON.parse(await post(echoUrl, ['{"a":', '1}'])) as { got: string }
    return { answer: answer.choices[0].message.content, echoed: echoed.got }
  }
  const rec = await (await scenario('chunked', { dir })).run(agent)
  expect(rec.result.echoed).toBe('{"a":1}')
  expect(rec.modelCalls).toHaveLength(1)
  expect(provider.requests[0].body).toContain('"Tell me a joke"')
  await provider.close()
  await new Promise<void>((r) => echo.close(() => r()))

  const out = await (await scenario('chunked', { dir })).run(agent)
  expect(out.result).toEqual(rec.result)
  expect(out.hermetic).toBe(true)
})
