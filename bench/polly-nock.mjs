// Polly.js and nock.back rows of section 1: the same capital-agent traffic, replayed by the two
// other record/replay tools, timed per agent run like the msw baseline (set up, run, torn down).
// Each records its own cassette once, into a temp dir, from a local server on 127.0.0.1 that
// serves the fixture's bytes chunk by chunk; then only replay is timed. Both store a response body
// whole, so they lose the recorded chunk boundaries (each replayed stream is one piece).
import { createServer } from 'node:http'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import { Polly } from '@pollyjs/core'
import FetchAdapter from '@pollyjs/adapter-fetch'
import FSPersister from '@pollyjs/persister-fs'
import nock from 'nock'
import { capitalAgent } from './agent.mjs'

// nock 14 intercepts as soon as it loads; it is switched on only around its own blocks.
nock.restore()
Polly.register(FetchAdapter)
Polly.register(FSPersister)

/** A server on 127.0.0.1 answering the agent's requests with the recorded responses (model cells in order). */
export function fixtureServer(modelResponses, toolResponse) {
  let n = 0
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      const rec = req.url.startsWith('/capital') ? toolResponse : modelResponses[n++ % modelResponses.length]
      res.writeHead(rec.status, rec.headers)
      for (const c of rec.chunks) res.write(c.text)
      res.end()
    })
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)))
}

const POLLY = (dir, mode) => ({
  mode,
  adapters: ['fetch'],
  persister: 'fs',
  persisterOptions: { fs: { recordingsDir: dir } },
  recordIfMissing: false,
  recordFailedRequests: true,
  logLevel: 'silent',
  // The SDK's headers carry per-call values (retry count, timeouts): match by method, URL, body and order.
  matchRequestsBy: { headers: false, order: true },
})

/**
 * Record both cassettes once, then return one timed replay per tool: `polly()` and `nockBack()` each time a
 * whole agent run with its tool's per-run setup and teardown, and return [ms, result].
 */
export async function pollyNock(modelResponses, toolResponse) {
  const dir = mkdtempSync(join(tmpdir(), 'fluxlab-bench-polly-nock-'))
  const server = await fixtureServer(modelResponses, toolResponse)
  const base = `http://127.0.0.1:${server.address().port}`
  const client = () => new OpenAI({ apiKey: 'bench-placeholder', baseURL: `${base}/v1`, maxRetries: 0 })
  const agent = () => capitalAgent(undefined, client(), base)

  const pollyRecord = new Polly('capital-agent', POLLY(dir, 'record'))
  const recordedPolly = await agent().finally(() => pollyRecord.stop())

  nock.back.fixtures = dir
  nock.activate()
  nock.back.setMode('record')
  const back = await nock.back('capital-agent.nock.json')
  const recordedNock = await agent().finally(() => {
    back.nockDone()
    nock.restore()
  })
  await new Promise((resolve) => server.close(resolve))
  nock.back.setMode('lockdown') // (setMode switches nock on again)
  nock.restore()

  async function polly() {
    const t0 = performance.now()
    const p = new Polly('capital-agent', POLLY(dir, 'replay'))
    let result
    try {
      result = await agent()
    } finally {
      await p.stop()
    }
    return [performance.now() - t0, result]
  }

  async function nockBack() {
    const t0 = performance.now()
    nock.activate()
    const b = await nock.back('capital-agent.nock.json')
    let result
    try {
      result = await agent()
    } finally {
      b.nockDone()
      nock.cleanAll()
      nock.restore()
    }
    return [performance.now() - t0, result]
  }

  return { recorded: { polly: recordedPolly, nock: recordedNock }, polly, nockBack, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}
