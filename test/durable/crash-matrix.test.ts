import { join } from 'node:path'
import { scenario, type CrashReport } from 'fluxlab'
import { matchers } from 'fluxlab/matchers'
import { beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, REPO } from '../e2e/support/project.js'
import { serve, tempDir, useEngineSandbox } from '../engine/helpers.js'

expect.extend(matchers)
useEngineSandbox()

const AGENT = join(REPO, 'test/durable/fixtures/dragons-lab-agent.mjs')
const strip = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '')

beforeAll(() => assertBuilt())

describe('Scenario.crashMatrix', () => {
  it('kills the agent at every boundary, resumes it against the recording, and only the in-flight op repeats', async () => {
    const dir = tempDir()
    const server = await serve(['openai-chat/test_tool_use_chain_of_two_calls.yaml'])
    process.env.PROVIDER_URL = server.url
    try {
      const { default: agent } = (await import(AGENT)) as { default: Parameters<Awaited<ReturnType<typeof scenario>>['run']>[0] }
      await (await scenario('dragons', { dir })).run(agent)
      await server.close()

      const report = await (await scenario('dragons', { dir })).crashMatrix(AGENT)
      expect(report.rows.map((r) => `${r.step} ${r.when}`)).toEqual(
        ['model#1', 'tool#1', 'model#2', 'tool#2', 'model#3'].flatMap((s) => [`${s} before-append`, `${s} after-append`]),
      )
      expect(report.rows.every((r) => r.crashed && r.resumed)).toBe(true)
      const tool1Before = report.rows.find((r) => r.step === 'tool#1' && r.when === 'before-append')!
      expect(tool1Before.toolExecutions).toEqual({ 'tool#1 lookup_population': 2, 'tool#2 can_have_dragons': 1 })
      expect(tool1Before.inFlight).toEqual(['tool#1 lookup_population'])
      const tool1After = report.rows.find((r) => r.step === 'tool#1' && r.when === 'after-append')!
      expect(tool1After.toolExecutions).toEqual({ 'tool#1 lookup_population': 1, 'tool#2 can_have_dragons': 1 })
      expect(tool1After.modelRequests).toEqual({ 'model#1': 1, 'model#2': 1, 'model#3': 1 })
      expect(report).toResumeWithoutReexecution()
    } finally {
      delete process.env.PROVIDER_URL
    }
  }, 120_000)
})

describe('Scenario.crashAt with redact options', () => {
  it("journals and reads back with the scenario's redact options, in the child and in the report", async () => {
    const dir = tempDir()
    const server = await serve(['openai-chat/openai-text.json'])
    process.env.PROVIDER_URL = server.url
    process.env.FAKE_JWT = ['eyJhbGciOiJIUzI1NiJ9', 'eyJzdWIiOiJzZXNzaW9uLWZpeHR1cmUifQ', 'c2Vzc2lvbi1zaWduYXR1cmU'].join('.')
    const agentFile = join(REPO, 'test/durable/fixtures/session-agent.mjs')
    const options = { dir, redact: { disable: ['jwt'] } }
    try {
      const { default: agent } = (await import(agentFile)) as { default: Parameters<Awaited<ReturnType<typeof scenario>>['run']>[0] }
      await (await scenario('session', options)).run(agent)
      await server.close()
      const row = await (await scenario('session', options)).crashAt('tool#1', { when: 'after-append', agent: agentFile })
      expect(row.error).toBeUndefined()
      expect(row).toMatchObject({ crashed: true, resumed: true, toolExecutions: { 'tool#1 issue_session': 1 }, modelRequests: { 'model#1': 1 } })
    } finally {
      delete process.env.PROVIDER_URL
      delete process.env.FAKE_JWT
    }
  }, 60_000)
})

describe('.toResumeWithoutReexecution', () => {
  const row = (over: Partial<CrashReport['rows'][number]>) => ({
    step: 'tool#1',
    when: 'before-append' as const,
    crashed: true,
    resumed: true,
    toolExecutions: { 'tool#1 send_email': 2 },
    modelRequests: { 'model#1': 1 },
    inFlight: ['tool#1 send_email'],
    ...over,
  })

  it('passes when only the in-flight operation ran twice', () => {
    expect({ scenario: 'mail', rows: [row({})] }).toResumeWithoutReexecution()
  })

  it('fails naming the step and tool that ran twice outside the in-flight window', () => {
    const report = { scenario: 'mail', rows: [row({ when: 'after-append', inFlight: [] })] }
    let message = ''
    try {
      expect(report).toResumeWithoutReexecution()
    } catch (e) {
      message = strip((e as Error).message)
    }
    expect(message).toContain('killed at tool#1 (after-append): tool#1 send_email ran 2 times, outside the in-flight window')
    expect(() => expect({ scenario: 'mail', rows: [row({})] }).not.toResumeWithoutReexecution()).toThrow(/resumed without re-execution/)
  })

  it('fails when a boundary was never reached or the resume failed', () => {
    const report = {
      scenario: 'mail',
      rows: [row({ crashed: false, error: 'the run never reached tool#1 (before-append): it exited with 0' }), row({ step: 'tool#2', resumed: false })],
    }
    expect(() => expect(report).toResumeWithoutReexecution()).toThrow(/never reached tool#1[\s\S]*killed at tool#2 \(before-append\): the resume failed/)
  })

  it('throws for something that is not a crash report', () => {
    expect(() => expect({ rows: 'nope' }).toResumeWithoutReexecution()).toThrow(/expects the report of/)
  })
})
