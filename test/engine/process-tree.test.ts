/**
 * Issue 26: one tape for the process tree. A child process started inside a run (here `s.run`; whole-suite tests in
 * test/e2e/process-tree.test.ts) records into the run's fixture and replays from it: the real `openai` SDK in a
 * `node` child, a grandchild started with an environment of its own, a shell's child. The replay runs with the
 * provider closed; a request the tape cannot serve is refused with the child's command line named.
 */
import { exec, execFile, execFileSync, execSync, spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { Worker } from 'node:worker_threads'
import { describe, expect, test } from 'vitest'
import { configure, scenario } from 'fluxlab'
import { readJsonl, tempDir, track, useEngineSandbox } from './helpers.js'

useEngineSandbox()

const ASK = fileURLToPath(new URL('./fixtures/tree/ask.mjs', import.meta.url))
const PARENT = fileURLToPath(new URL('./fixtures/tree/parent.mjs', import.meta.url))
const WORKER = fileURLToPath(new URL('./fixtures/tree/worker.mjs', import.meta.url))
const WS_CHILD = fileURLToPath(new URL('./fixtures/tree/ws-child.mjs', import.meta.url))
const SERVER = fileURLToPath(new URL('./fixtures/tree/chat-server.mjs', import.meta.url))
const KEY = 'sk-proj-tree0recording0key0not0real0aaaaaaaaaaaa'

/** The chat server, in a process of its own (the test blocks in execSync); `hits` asks it how many chat requests it had. */
interface ChatServer {
  url: string
  hits(): Promise<number>
  close(): Promise<void>
}

async function chatServer(): Promise<ChatServer> {
  const child = spawn(process.execPath, [SERVER], { stdio: ['ignore', 'pipe', 'inherit'] })
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (b: Buffer) => resolve(b.toString().trim()))
    child.once('error', reject)
  })
  let closed = false
  let last = 0
  const server: ChatServer = {
    url,
    hits: async () => (closed ? last : (last = Number(await (await fetch(`${url}/hits`)).text()))),
    async close() {
      if (closed) return
      await server.hits()
      closed = true
      child.kill()
      await new Promise((resolve) => child.once('exit', resolve))
    },
  }
  track(server)
  return server
}

const run = promisify(execFile)
const shell = promisify(exec)

/** Record `agent` with the provider up, then replay it with the provider closed and the key unset. */
async function recordThenReplay(name: string, agent: () => Promise<string>) {
  const server = await chatServer()
  const dir = tempDir()
  process.env.OPENAI_BASE_URL = `${server.url}/v1`
  process.env.OPENAI_API_KEY = KEY
  try {
    const rec = await scenario(name, { dir })
    expect(rec.mode).toBe('record')
    const recorded = await rec.run(agent)
    const hits = await server.hits()
    await server.close()
    delete process.env.OPENAI_API_KEY
    const rep = await scenario(name, { dir })
    expect(rep.mode).toBe('replay')
    const replayed = await rep.run(agent)
    return { recorded, replayed, hits, replayHits: (await server.hits()) - hits, fixture: `${dir}/${name}` }
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
    process.env.OPENAI_BASE_URL = `${server.url}/v1`
    process.env.OPENAI_API_KEY = KEY
    try {
      await (await scenario('changed', { dir })).run(() => run(process.execPath, [ASK, 'first']))
      const hits = await server.hits()
      const rep = await scenario('changed', { dir })
      const out = await rep.run(async () => {
        await run(process.execPath, [ASK, 'first'])
        return run(process.execPath, [ASK, 'a question never recorded']).catch((e: Error) => e.message)
      })
      expect(await server.hits()).toBe(hits)
      expect(out.result).toMatch(/Command failed/)
      const overflow = out.divergences.find((d) => d.code === 'model_index_overflow')
      expect(overflow?.message).toContain(`sent by the child process \`${process.execPath} ${ASK} a question never recorded\``)
    } finally {
      delete process.env.OPENAI_BASE_URL
      delete process.env.OPENAI_API_KEY
    }
  })

  test('children started with execSync, execFileSync and spawnSync (which block the test) are on the tape, in order', async () => {
    const rr = await recordThenReplay('sync', async () => {
      const one = execSync(`"${process.execPath}" "${ASK}" 'sync one'`, { encoding: 'utf8' })
      const two = execFileSync(process.execPath, [ASK, 'sync two', '--stream'], { encoding: 'utf8' })
      const three = spawnSync(process.execPath, [PARENT], { encoding: 'utf8' })
      return `${one} / ${two} / ${three.status} ${three.stdout}`
    })
    expect(rr.recorded.result).toBe(
      'answer to sync one / answer to sync two / 0 answer to grandchild question | answer to child question after: answer to grandchild question',
    )
    expect(rr.hits).toBe(4)
    expect(rr.replayHits).toBe(0)
    expect(rr.replayed.divergences).toEqual([])
    expect(rr.replayed.result).toBe(rr.recorded.result)
    expect(rr.replayed.modelCalls).toHaveLength(4)
    expect(readJsonl(`${rr.fixture}/model.jsonl`).map((c) => c.step)).toEqual(['model#1', 'model#2', 'model#3', 'model#4'])
  })

  test('a synchronous child keeps its own behaviour: output, exit codes, a missing program', async () => {
    const out = await (await scenario('sync-plain', { dir: tempDir() })).run(async () => {
      const echo = execSync('echo hi', { encoding: 'utf8' })
      const failed = (() => {
        try {
          execSync('exit 3', { stdio: 'pipe' })
          return 'no throw'
        } catch (e) {
          return `${(e as { status: number }).status} ${(e as Error).message.split('\n')[0]}`
        }
      })()
      const missing = spawnSync('/no/such/program', ['x'])
      const thrown = (() => {
        try {
          execFileSync('/no/such/program')
        } catch (e) {
          return (e as NodeJS.ErrnoException).code
        }
      })()
      const input = execFileSync(process.execPath, ['-e', 'process.stdin.pipe(process.stdout)'], { input: 'piped', encoding: 'utf8' })
      return { echo, failed, missing: [missing.status, (missing.error as NodeJS.ErrnoException | undefined)?.code], thrown, input }
    })
    expect(out.result).toEqual({ echo: 'hi\n', failed: '3 Command failed: exit 3', missing: [null, 'ENOENT'], thrown: 'ENOENT', input: 'piped' })
  })

  test('a worker thread started inside a run is on its tape', async () => {
    const ask = (question: string) =>
      new Promise<string>((resolve, reject) => {
        const worker = new Worker(WORKER, { workerData: { question } })
        worker.once('message', resolve)
        worker.once('error', reject)
      })
    const rr = await recordThenReplay('worker', async () => `${await ask('from a worker')} / ${await ask('from another')}`)
    expect(rr.recorded.result).toBe('answer to from a worker / answer to from another')
    expect(rr.hits).toBe(2)
    expect(rr.replayHits).toBe(0)
    expect(rr.replayed.divergences).toEqual([])
    expect(rr.replayed.result).toBe(rr.recorded.result)
  })

  test('with childBaseUrls, a child that cannot be preloaded reaches the run through OPENAI_BASE_URL; the fixture keeps its host', async () => {
    configure({ childBaseUrls: true })
    try {
      // The shell clears NODE_OPTIONS, so the node it starts has no preload: only the base-URL variable leads to the run.
      // A preloaded child reads the same variable: its request is the one it stands for too.
      const rr = await recordThenReplay('base-url', async () => {
        const bare = await shell(`NODE_OPTIONS= "${process.execPath}" "${ASK}" 'no preload'`)
        const preloaded = await run(process.execPath, [ASK, 'preloaded'])
        return `${bare.stdout} / ${preloaded.stdout}`
      })
      expect(rr.recorded.result).toBe('answer to no preload / answer to preloaded')
      expect(rr.hits).toBe(2)
      expect(rr.replayHits).toBe(0)
      expect(rr.replayed.divergences).toEqual([])
      expect(rr.replayed.result).toBe(rr.recorded.result)
      // each request as the child would have sent it without fluxlab: no endpoint or token in the fixture
      const cells = readJsonl(`${rr.fixture}/model.jsonl`)
      expect(cells.map((c) => c.request.path)).toEqual(['/v1/chat/completions', '/v1/chat/completions'])
      expect(readFileSync(`${rr.fixture}/model.jsonl`, 'utf8') + readFileSync(`${rr.fixture}/scenario.yaml`, 'utf8')).not.toContain('%3A%2F%2F')
    } finally {
      configure({ childBaseUrls: undefined })
    }
  })

  test('a model call a child cannot have routed (a `ws` upgrade to a provider host) is refused there and fails the run', async () => {
    const server = await chatServer()
    const host = new URL(server.url).host
    const s = await scenario('ws-child', { dir: tempDir(), hosts: { [host]: 'openai-chat' } })
    const out = await s.run(() => run(process.execPath, [WS_CHILD, `${server.url.replace('http', 'ws')}/v1/realtime`])).catch((e: Error) => e)
    expect(out).toBeInstanceOf(Error)
    expect((out as Error).message).toMatch(/FLUX_UNROUTABLE[\s\S]*in the child process `.*ws-child\.mjs/)
    expect(await server.hits()).toBe(0)
  })

  test('a child that never reached the run (NODE_OPTIONS cleared, no base-URL variable) is warned about, naming it; one that did, or starts no Node, is not', async () => {
    const node = `"${process.execPath}" -e "setTimeout(() => {}, 20)"`
    const out = await (await scenario('unseen', { dir: tempDir() })).run(async () => {
      await shell(`NODE_OPTIONS= ${node}`)
      execSync(`NODE_OPTIONS= ${node} && echo sync`)
      // reached: the preload said so at its start, though the child sends nothing
      await run(process.execPath, ['-e', 'setTimeout(() => {}, 20)'])
      execFileSync(process.execPath, ['-e', '0'])
      // no Node can start here
      await shell('rm -f /tmp/fluxlab-none && echo hi | cat > /dev/null')
      execSync('git --version')
      return 'done'
    })
    expect(out.result).toBe('done')
    expect(out.divergences.filter((d) => d.code !== 'unseen_child')).toEqual([])
    const unseen = out.warnings.filter((w) => w.code === 'unseen_child')
    expect(unseen.map((w) => /`([^`]+)`/.exec(w.message)?.[1])).toEqual([`NODE_OPTIONS= ${node} && echo sync`, `NODE_OPTIONS= ${node}`])
    expect(unseen[0].message).toMatch(/went out unseen[\s\S]*childBaseUrls: true/)
    expect(out.warnings.filter((w) => w.code !== 'unseen_child')).toEqual([])
  })

  test('a child started outside every run is untouched: no preload, its requests go where they go', async () => {
    const server = await chatServer()
    const { stdout } = await run(process.execPath, ['-e', 'process.stdout.write(process.env.NODE_OPTIONS ?? "")'])
    expect(stdout).not.toContain('preload')
    const plain = await run(process.execPath, [ASK, 'outside'], { env: { ...process.env, OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: KEY } })
    expect(plain.stdout).toBe('answer to outside')
    expect(await server.hits()).toBe(1)
  })
})
