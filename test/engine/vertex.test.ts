/**
 * Google Vertex AI (issue 16): Claude through the real `@anthropic-ai/vertex-sdk`, Gemini through the
 * real `@ai-sdk/google-vertex`, both authenticated by a google-auth-library client that holds an
 * OAuth access token (no Google auth call is made), against a local Vertex AI. Recorded, then
 * replayed with CI=1 and the server closed; the Bearer token never reaches the fixture.
 */
import { randomBytes } from 'node:crypto'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { AnthropicVertex } from '@anthropic-ai/vertex-sdk'
import { createVertex } from '@ai-sdk/google-vertex'
import { generateText, stepCountIs, streamText, tool } from 'ai'
import { scenario, type Lab } from 'fluxlab'
import { OAuth2Client } from 'google-auth-library'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { ANSWER, startVertexServer, type VertexServer } from '../support/vertex-server.js'
import { readJsonl, tempDir, track, useEngineSandbox } from './helpers.js'

useEngineSandbox()

/** A real-looking (made up) Google OAuth access token, as Application Default Credentials mint them. */
const ACCESS_TOKEN = [
  'ya',
  '29.',
  'a0',
  [...randomBytes(160)].map((b) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-'[b % 64]).join(''),
].join('')
const PROJECT = 'fluxlab-test-4711'

/** google-auth-library's own OAuth2 client, holding a token that does not expire during the test: it never refreshes. */
function authClient(): OAuth2Client {
  const client = new OAuth2Client()
  client.setCredentials({ access_token: ACCESS_TOKEN, expiry_date: Date.now() + 3_600_000, token_type: 'Bearer' })
  client.projectId = PROJECT
  return client
}

async function recordThenReplay(server: VertexServer, name: string, agent: (lab: Lab) => Promise<unknown>) {
  const dir = tempDir()
  const s = await scenario(name, { dir })
  expect(s.mode).toBe('record')
  const recorded = await s.run(agent)
  const hits = server.requests.length
  await server.close()
  process.env.CI = '1'
  const again = await scenario(name, { dir })
  expect(again.mode).toBe('replay')
  const replayed = await again.run(agent)
  return { recorded, replayed, hits, fixture: join(dir, name) }
}

function expectNoToken(server: VertexServer, fixture: string): void {
  expect(server.requests[0].headers.authorization).toBe(`Bearer ${ACCESS_TOKEN}`)
  const all = readdirSync(fixture)
    .map((f) => readFileSync(join(fixture, f), 'utf8'))
    .join('\n')
  expect(all).not.toContain(ACCESS_TOKEN.slice(0, 30))
}

describe('@anthropic-ai/vertex-sdk', () => {
  test('messages.stream (streamRawPredict) then messages.create (rawPredict): a tool call and the answer, replayed', async () => {
    const server = await startVertexServer()
    track(server)
    const model = 'claude-haiku-4-5@20251001'
    const agent = async (lab: Lab) => {
      const weather = lab.tool('get_weather', async ({ city }: { city: string }, _o: { toolCallId: string }) => `18°C and sunny in ${city}`)
      const client = new AnthropicVertex({ baseURL: `${server.url}/v1`, region: 'us-east5', projectId: PROJECT, authClient: authClient(), maxRetries: 0 })
      const tools = [
        { name: 'get_weather', description: 'Weather in a city.', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } },
      ]
      const ask = { role: 'user' as const, content: 'Weather in Paris?' }
      const first = await client.messages.stream({ model, max_tokens: 256, system: 'Answer briefly.', tools, messages: [ask] }).finalMessage()
      const use = first.content.find((b) => b.type === 'tool_use')
      if (use?.type !== 'tool_use') throw new Error('expected a tool call')
      const result = await weather(use.input as { city: string }, { toolCallId: use.id })
      const second = await client.messages.create({
        model,
        max_tokens: 256,
        system: 'Answer briefly.',
        tools,
        messages: [
          ask,
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: result }] },
        ],
      })
      return {
        call: [use.id, use.name, use.input],
        first: first.usage,
        text: second.content.map((b) => (b.type === 'text' ? b.text : '')).join(''),
        second: second.usage,
      }
    }
    const { recorded, replayed, hits, fixture } = await recordThenReplay(server, 'claude-on-vertex', agent)
    expect(hits).toBe(2)
    expect(server.requests.map((r) => r.path)).toEqual([
      `/v1/projects/${PROJECT}/locations/us-east5/publishers/anthropic/models/${model}:streamRawPredict`,
      `/v1/projects/${PROJECT}/locations/us-east5/publishers/anthropic/models/${model}:rawPredict`,
    ])
    expect(recorded.result).toMatchObject({ call: ['toolu_vrtx_01Kq8ZcN3xWm5Rt7Yb2LpD4f', 'get_weather', { city: 'Paris' }], text: ANSWER })
    expect(replayed.result).toEqual(recorded.result)
    expect(replayed.hermetic).toBe(true)
    expect(replayed.divergences).toEqual([])
    const cells = readJsonl(join(fixture, 'model.jsonl'))
    expect(cells.map((c) => [c.family, c.model, c.finishReason, c.usage.input, c.usage.output, c.text])).toEqual([
      ['anthropic', model, 'tool_use', 388, 54, ''],
      ['anthropic', model, 'end_turn', 420, 16, ANSWER],
    ])
    // Priced as Claude Haiku 4.5 ($1 / $5 per million tokens): 808 in, 70 out.
    expect(replayed.cost().total).toBeCloseTo((808 * 1 + 70 * 5) / 1e6, 9)
    expectNoToken(server, fixture)
  })
})

describe('@ai-sdk/google-vertex', () => {
  test.each([
    ['generateText (generateContent)', false],
    ['streamText (streamGenerateContent?alt=sse)', true],
  ])('%s: a function call and the answer, replayed', async (_, stream) => {
    const server = await startVertexServer()
    track(server)
    const agent = async (lab: Lab) => {
      const weather = lab.tool('get_weather', async ({ city }: { city: string }, _o: { toolCallId: string }) => ({ city, tempC: 18, sky: 'sunny' }))
      const vertex = createVertex({
        project: PROJECT,
        location: 'us-central1',
        baseURL: `${server.url}/v1/projects/${PROJECT}/locations/us-central1/publishers/google`,
        googleAuthOptions: { authClient: authClient() },
      })
      const options = {
        model: vertex('gemini-2.5-flash'),
        prompt: 'Weather in Paris?',
        maxRetries: 0,
        stopWhen: stepCountIs(2),
        tools: {
          get_weather: tool({
            description: 'Weather in a city.',
            inputSchema: z.object({ city: z.string() }),
            execute: (input, { toolCallId }) => weather(input, { toolCallId }),
          }),
        },
      }
      const result = stream ? streamText(options) : await generateText(options)
      const steps = await result.steps
      return {
        text: await result.text,
        steps: steps.map((s) => ({ calls: s.toolCalls.map((c) => [c.toolName, c.input]), usage: [s.usage.inputTokens, s.usage.outputTokens] })),
      }
    }
    const { recorded, replayed, hits, fixture } = await recordThenReplay(server, `gemini-on-vertex-${stream}`, agent)
    expect(hits).toBe(2)
    const action = stream ? 'streamGenerateContent?alt=sse' : 'generateContent'
    expect(server.requests[0].path).toBe(`/v1/projects/${PROJECT}/locations/us-central1/publishers/google/models/gemini-2.5-flash:${action}`)
    expect(recorded.result).toEqual({
      text: ANSWER,
      steps: [
        { calls: [['get_weather', { city: 'Paris' }]], usage: [61, 5] },
        { calls: [], usage: [95, 12] },
      ],
    })
    expect(replayed.result).toEqual(recorded.result)
    expect(replayed.divergences).toEqual([])
    const cells = readJsonl(join(fixture, 'model.jsonl'))
    expect(cells.map((c) => [c.family, c.model, c.usage.input, c.usage.output, c.toolCalls.map((t: { name: string }) => t.name)])).toEqual([
      ['gemini', 'gemini-2.5-flash', 61, 5, ['get_weather']],
      ['gemini', 'gemini-2.5-flash', 95, 12, []],
    ])
    expectNoToken(server, fixture)
  })
})
