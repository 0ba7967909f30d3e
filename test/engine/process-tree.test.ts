/**
 * Issue 26: one tape for the process tree. A child process started inside a run (here `s.run`; whole-suite tests in
 * test/e2e/process-tree.test.ts) records into the run's fixture and replays from it: the real `openai` SDK in a
 * `node` child, a grandchild started with an environment of its own, a shell's child. The replay runs with the
 * provider closed; a request the tape cannot serve is refused with the child's command line named.
 */
import { exec, execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, test } from 'vitest'
import { scenario } from 'fluxlab'
import { startProviderServer, type ProviderServer, type ReceivedRequest } from '../support/provider-server.js'
import { openaiBaseURL } from '../support/index.js'
import { readJsonl, tempDir, track, useEngineSandbox } from './helpers.js'

useEngineSandbox()

const ASK = fileURLToPath(new URL('./fixtures/tree/ask.mjs', import.meta.url))
const PARENT = fileURLToPath(new URL('./fixtures/tree/parent.mjs', import.meta.url))
const KEY = 'sk-proj-tree0recording0key0not0real0aaaaaaaaaaaa'

/** An OpenAI chat server whose answer names the question, so each reply shows which request it answers. */
async function chatServer(): Promise<ProviderServer> {
  const server = await startProviderServer({
    script: (req: ReceivedRequest) => {
      const body = req.json as { messages: Array<{ content: string }>; stream?: boolean }
      const text = `answer to ${body.messages.at(-1)?.content}`
      if (body.stream) {
        const events = [text.slice(0, 6), text.slice(6)].map((content, i) => ({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: i === 0 ? { role: 'assistant', content } : { content }, finish_reason: null }] }))
        return { method: 'POST', path: '/v1/chat/completions', status: 200, headers: { 'content-type': 'text/event-stream' }, body: [...events.map((e) => `data: ${JSON.stringify(e)}\n\n`), 'data: [DONE]\n\n'].join('') }
      }
      const completion = { id: 'c1', object: 'chat.completion', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } }
      return { method: 'POST', path: '/v1/chat/completions', status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(completion) }
    },
  })
  track(server)
  return server
}

const run = promisify(execFile)
const shell = promisify(exec)

/** Record `agent` with the provider up, then replay it with the provider closed and the key unset. */
async function recordThenReplay(name: string, agent: () => Promise<string>) {
  const server = await chatServer()
  const dir = tempDir()
  process.env.OPENAI_BASE_URL = openaiBaseURL(server)
  process.env.OPENAI_API_KEY = KEY
  try {
    const rec = await scenario(name, { dir })
    expect(rec.mode).toBe('record')
    const recorded = await rec.run(agent)
    const hits = server.hits
    await server.close()
    delete process.env.OPENAI_API_KEY
    const rep = await scenario(name, { dir })
    expect(rep.mode).toBe('replay')
    const replayed = await rep.run(agent)
    return { recorded, replayed, hits, replayHits: server.hits - hits, fixture: `${dir}/${name}` }
  } finally {
    delete process.env.OPENAI_BASE_URL
    delete process.env.OPENAI_API_KEY
  }
}

describe('child processes started inside a run', () => {
  test('a node child with the real openai SDK records into the run and replays with the provider closed', async () => {
    const rr = await recordThenReplay('child', async () => {
      const one = await run(process.execPath, [ASK, 'what is one?'])
      const two = await run(process.execPath, [ASK, 'what is two?', '--stream'])
      return `${one.stdout} / ${two.stdout}`
    })
    expect(rr.recorded.result).toBe('answer to what is one? / answer to what is two?')
    expect(rr.hits).toBe(2)
    expect(rr.replayHits).toBe(0)
    expect(rr.replayed.divergences).toEqual([])
    expect(rr.replayed.result).toBe(rr.recorded.result)
    expect(rr.replayed.hermetic).toBe(true)
    expect(rr.replayed.modelCalls).toHaveLength(2)
    const cells = readJsonl(`${rr.fixture}/model.jsonl`)
    expect(cells.map((c) => c.step)).toEqual(['model#1', 'model#2'])
    // the key the child sent never reaches the fixture
    expect(JSON.stringify(cells)).not.toContain(KEY.slice(8, 20))
  })

  test('a grandchild started with an explicit env, and a shell child, are on the same tape', async () => {
    const rr = await recordThenReplay('grandchild', async () => {
      const { stdout } = await run(process.execPath, [PARENT])
      const viaShell = await shell(`"${process.execPath}" "${ASK}" 'from a shell'`)
      return `${stdout} ; ${viaShell.stdout}`
    })
    expect(rr.recorded.result).toBe('answer to grandchild question | answer to child question after: answer to grandchild question ; answer to from a shell')
    expect(rr.hits).toBe(3)
    expect(rr.replayHits).toBe(0)
    expect(rr.replayed.divergences).toEqual([])
    expect(rr.replayed.result).toBe(rr.recorded.result)
  })

  test('on replay, a child request the tape cannot serve is refused, naming the child, and never sent', async () => {
    const server = await chatServer()
    const dir = tempDir()
    process.env.OPENAI_BASE_URL = openaiBaseURL(server)
    process.env.OPENAI_API_KEY = KEY
    try {
      await (await scenario('changed', { dir })).run(() => run(process.execPath, [ASK, 'first']))
      const hits = server.hits
      const rep = await scenario('changed', { dir })
      const out = await rep.run(async () => {
        await run(process.execPath, [ASK, 'first'])
        return run(process.execPath, [ASK, 'a question never recorded']).catch((e: Error) => e.message)
      })
      expect(server.hits).toBe(hits)
      expect(out.result).toMatch(/Command failed/)
      const overflow = out.divergences.find((d) => d.code === 'model_index_overflow')
      expect(overflow?.message).toContain(`sent by the child process \`${process.execPath} ${ASK} a question never recorded\``)
    } finally {
      delete process.env.OPENAI_BASE_URL
      delete process.env.OPENAI_API_KEY
    }
  })

  test('a child started outside every run is untouched: no preload, its requests go where they go', async () => {
    const server = await chatServer()
    const { stdout } = await run(process.execPath, ['-e', 'process.stdout.write(process.env.NODE_OPTIONS ?? "")'])
    expect(stdout).not.toContain('preload')
    const plain = await run(process.execPath, [ASK, 'outside'], { env: { ...process.env, OPENAI_BASE_URL: openaiBaseURL(server), OPENAI_API_KEY: KEY } })
    expect(plain.stdout).toBe('answer to outside')
    expect(server.hits).toBe(1)
  })
})
