/**
 * Image and audio endpoints are model calls (the `openai-media` family), measured on a real
 * third-party suite: its text-to-speech and image tests failed to record with FLUX_RECORD_FAILED,
 * and on replay a speech request to the provider host went out as plain HTTP.
 * Driven by the real `openai` SDK against a local server on 127.0.0.1, reached through the
 * upstream map; the vendor host is under `.invalid` (RFC 2606).
 */
import { existsSync, readFileSync } from 'node:fs'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import OpenAI, { toFile } from 'openai'
import { scenario } from 'fluxlab'
import { expect, test } from 'vitest'
import { readJsonl, tempDir, useEngineSandbox } from './helpers.js'

useEngineSandbox()

const VENDOR = 'https://api.vendor.invalid/v1'
// An MP3 frame header and bytes that are not UTF-8 on their own.
const AUDIO = Buffer.from([0xff, 0xfb, 0x90, 0x64, 0x00, 0x0f, 0xf0, 0x80, 0x81, 0xfe, 0x69, 0x00, 0xc3, 0x28])
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='

async function mediaServer() {
  const bodies: string[] = []
  const read = async (req: IncomingMessage) => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    return Buffer.concat(chunks).toString('latin1')
  }
  const server = createServer(async (req, res) => {
    const body = await read(req)
    bodies.push(body)
    if (req.url === '/v1/audio/speech') {
      res.writeHead(200, { 'content-type': 'audio/mpeg' })
      return res.end(AUDIO)
    }
    res.writeHead(200, { 'content-type': 'application/json' })
    if (req.url === '/v1/images/generations')
      return res.end(JSON.stringify({ created: 1, data: [{ b64_json: PNG }], usage: { input_tokens: 9, output_tokens: 272, total_tokens: 281 } }))
    if (req.url === '/v1/audio/transcriptions') return res.end(JSON.stringify({ text: `heard ${/whisper-1/.test(body) ? 'whisper' : '?'}` }))
    res.end('{}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies, close: () => new Promise<void>((r) => server.close(() => r())) }
}

const agent = async () => {
  const client = new OpenAI({ baseURL: VENDOR, apiKey: 'sk-test', maxRetries: 0 })
  const speech = Buffer.from(await (await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hello' })).arrayBuffer())
  const image = await client.images.generate({ model: 'gpt-image-1', prompt: 'a blue square' })
  const heard = await client.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(speech, 'hello.mp3', { type: 'audio/mpeg' }) })
  return { speech: speech.toString('hex'), image: image.data?.[0]?.b64_json, usage: image.usage?.output_tokens, heard: heard.text }
}

test('speech, image and transcription calls record as model calls and replay byte for byte offline', async () => {
  const dir = tempDir()
  const server = await mediaServer()
  const rec = await (await scenario('media', { dir, upstream: { 'api.vendor.invalid': server.url } })).run(agent)
  await server.close()
  expect(rec.result).toEqual({ speech: AUDIO.toString('hex'), image: PNG, usage: 272, heard: 'heard whisper' })
  expect(rec.modelCalls.map((c) => c.family)).toEqual(['openai-media', 'openai-media', 'openai-media'])
  const cells = readJsonl(join(dir, 'media/model.jsonl'))
  expect(cells.map((c) => new URL(c.url).pathname)).toEqual(['/v1/audio/speech', '/v1/images/generations', '/v1/audio/transcriptions'])
  expect(cells[0].response.chunks.some((c: { b64?: string }) => c.b64 !== undefined)).toBe(true)
  expect(readFileSync(join(dir, 'media/model.jsonl'), 'utf8')).not.toContain('sk-test')
  // The SDK's FormData probe (a fetch of `data:,`) is no traffic: it is not a tool call on the tape.
  expect(existsSync(join(dir, 'media/tools.jsonl')) ? readJsonl(join(dir, 'media/tools.jsonl')) : []).toEqual([])

  process.env.CI = '1'
  const out = await (await scenario('media', { dir })).run(agent)
  expect(out.mode).toBe('replay')
  expect(out.result).toEqual(rec.result)
  expect(out.hermetic).toBe(true)
  // The multipart boundary differs on every upload; the key ignores it, so nothing drifted.
  expect(out.warnings).toEqual([])
  expect(out.usage.output).toBe(272)
})
