import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadExchanges, startProviderServer, type ProviderServer } from '../support/index.js'
import { assertBuilt, linkSelf, REPO } from '../e2e/support/project.js'
import { tempDir, useEngineSandbox } from '../engine/helpers.js'

useEngineSandbox()

const AGENT = join(REPO, 'test/durable/fixtures/dragons-agent.mjs')
const exchanges = loadExchanges('openai-chat/test_tool_use_chain_of_two_calls.yaml')

/** The provider answers by conversation length, so a resumed run that skips journaled calls still gets the right turn. */
async function provider(): Promise<ProviderServer> {
  return startProviderServer({
    script: (req) => {
      const n = ((req.json as { messages?: unknown[] })?.messages ?? []).length
      return exchanges[n === 1 ? 0 : n === 3 ? 1 : 2]
    },
  })
}

interface ChildRun {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

function runAgent(env: Record<string, string>): Promise<ChildRun> {
  return new Promise((resolve) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(CI|FLUX_|VITEST|NODE_OPTIONS)/.test(k)))
    const child = spawn(process.execPath, [AGENT], { cwd: REPO, env: { ...clean, ...env } })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
}

const effects = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : [])
const modelRequests = (s: ProviderServer) => s.requests.filter((r) => r.path.endsWith('/chat/completions')).length

const BOUNDARIES = ['model#1', 'tool#1', 'model#2', 'tool#2', 'model#3'].flatMap((step) =>
  (['before-append', 'after-append'] as const).map((when) => ({ step, when })),
)

beforeAll(() => {
  assertBuilt()
  linkSelf()
})

describe('durable() across a SIGKILL', () => {
  it.each(BOUNDARIES)('resumes after a kill at $step $when without re-running finished work', async ({ step, when }) => {
    const server = await provider()
    try {
      const dir = tempDir()
      const env = { PROVIDER_URL: server.url, STATE_DIR: join(dir, 'state'), EFFECTS_FILE: join(dir, 'effects.log') }
      const crashed = await runAgent({ ...env, FLUX_CRASH_AT: `${step}:${when}` })
      expect(crashed.signal, crashed.stderr).toBe('SIGKILL')
      const before = { effects: effects(env.EFFECTS_FILE), models: modelRequests(server) }

      const resumed = await runAgent(env)
      expect(resumed.code, resumed.stderr).toBe(0)
      const { result, resurrected } = JSON.parse(resumed.stdout.trim().split('\n').pop()!)
      expect(result).toBe('YES')
      expect(resurrected).not.toBeNull()

      // Every finished tool effect happened once; only the op in flight at the kill (its result never journaled) may repeat.
      const lines = effects(env.EFFECTS_FILE)
      const counts = Object.values(lines.reduce<Record<string, number>>((m, l) => ({ ...m, [l]: (m[l] ?? 0) + 1 }), {}))
      expect(Object.keys(counts)).toHaveLength(2)
      const inFlightTool = when === 'before-append' && step.startsWith('tool#')
      expect(counts.filter((c) => c === 2)).toHaveLength(inFlightTool ? 1 : 0)
      expect(counts.every((c) => c <= 2)).toBe(true)
      expect(resurrected.inFlight).toEqual(when === 'before-append' ? [expect.stringMatching(new RegExp(`^${step}`))] : [])

      // The provider never saw a journaled model step again: at most the in-flight model call repeats.
      const repeatedModel = when === 'before-append' && step.startsWith('model#') ? 1 : 0
      expect(modelRequests(server)).toBe(3 + repeatedModel)
      expect(resurrected.servedFromJournal).toBe(before.effects.length + before.models - (when === 'before-append' ? 1 : 0))
    } finally {
      await server.close()
    }
  })
})
