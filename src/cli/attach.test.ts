import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { attachScenario } from './attach.js'

const completion = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4o-mini-2024-07-18',
  choices: [{ index: 0, message: { role: 'assistant', content: 'London' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 },
}
const ask = () =>
  new Request('http://127.0.0.1:9/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'What is the capital of the UK?' }] }),
  })

let dir = ''
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('attachScenario', () => {
  it("marks its run written when a recording is saved, so the run's facts count it as recorded (fluxlab serve)", async () => {
    dir = mkdtempSync(join(tmpdir(), 'fluxlab-attach-'))
    const live = async () => new Response(JSON.stringify(completion), { headers: { 'content-type': 'application/json' } })
    const attached = attachScenario({ name: 'app-server', dir: join(dir, 'app-server'), mode: 'record', options: {}, offline: false, live })
    await (await attached.handle(ask())).text()
    const result = await attached.finish({ programFailed: false })
    expect(result.saved, String(result.fatal)).toBe(true)
    expect(attached.run.written).toBe(true)
  })

  it('leaves a run that wrote nothing unwritten', async () => {
    dir = mkdtempSync(join(tmpdir(), 'fluxlab-attach-'))
    const attached = attachScenario({ name: 'app-server', dir: join(dir, 'app-server'), mode: 'record', options: {}, offline: false })
    const result = await attached.finish({ programFailed: false })
    expect(result.saved).toBe(false)
    expect(attached.run.written).toBe(false)
  })
})
