import { describe, expect, it } from 'vitest'
import type { CrashReport, CrashRow } from '../scenario/crash.js'
import { toResumeWithoutReexecution } from './to-resume-without-reexecution.js'
import { capitalsOutcome, messageOf } from './utils/test-outcome.js'

expect.extend({ toResumeWithoutReexecution })

/**
 * A boundary of the refund agent (model#1 → tool#1 payments.refund → tool#2 ledger.record → model#2)
 * that crashed and resumed, every operation run once. Journal steps are named as crash.ts counts them.
 */
const row = (over: Partial<CrashRow> = {}): CrashRow => ({
  step: 'tool#1',
  when: 'after-append',
  crashed: true,
  resumed: true,
  toolExecutions: { 'tool#1 payments.refund': 1, 'tool#2 ledger.record': 1 },
  modelRequests: { 'model#1': 1, 'model#2': 1 },
  inFlight: [],
  ...over,
})

/** Killed before the refund's result was journaled: the refund is in flight and runs again on resume. */
const inFlightRefund = (over: Partial<CrashRow> = {}): CrashRow =>
  row({ when: 'before-append', toolExecutions: { 'tool#1 payments.refund': 2, 'tool#2 ledger.record': 1 }, inFlight: ['tool#1 payments.refund'], ...over })

const report = (...rows: CrashRow[]): CrashReport => ({ scenario: 'refund', rows })

describe('.toResumeWithoutReexecution', () => {
  it('passes when every boundary resumed and each operation ran once', () => {
    expect(report(row(), row({ step: 'model#2', when: 'before-append' }))).toResumeWithoutReexecution()
  })

  it('passes when only the in-flight operation ran twice', () => {
    expect(report(inFlightRefund())).toResumeWithoutReexecution()
  })

  it('passes when the in-flight operation was a model request', () => {
    expect(
      report(row({ step: 'model#2', when: 'before-append', modelRequests: { 'model#1': 1, 'model#2': 2 }, inFlight: ['model#2'] })),
    ).toResumeWithoutReexecution()
  })

  it('fails when a finished operation ran again outside the in-flight window, naming the boundary and the step', () => {
    const rerun = row({ step: 'tool#2', toolExecutions: { 'tool#1 payments.refund': 2, 'tool#2 ledger.record': 1 } })
    expect(messageOf(() => expect(report(inFlightRefund(), rerun)).toResumeWithoutReexecution())).toMatchInlineSnapshot(`
      "expect(outcome).toResumeWithoutReexecution() // crash report

      Expected: every boundary resumes, and nothing but the in-flight operation runs twice
      Received: 1 problem in scenario "refund":
        • killed at tool#2 (after-append): tool#1 payments.refund ran 2 times, outside the in-flight window

      An operation outside the in-flight window ran again: its result was not journaled before the agent used it (an unwrapped tool? wrap it with lab.tools), or the agent changed between the runs."
    `)
  })

  it('fails when a finished model request was sent again', () => {
    const resent = row({ modelRequests: { 'model#1': 2, 'model#2': 1 } })
    expect(messageOf(() => expect(report(resent)).toResumeWithoutReexecution())).toContain(
      '  • killed at tool#1 (after-append): model#1 ran 2 times, outside the in-flight window',
    )
  })

  it('fails when the in-flight operation ran more than once again', () => {
    const thrice = inFlightRefund({ toolExecutions: { 'tool#1 payments.refund': 3, 'tool#2 ledger.record': 1 } })
    expect(messageOf(() => expect(report(thrice)).toResumeWithoutReexecution())).toContain(
      '  • killed at tool#1 (before-append): tool#1 payments.refund ran 3 times (in flight, but more than once again)',
    )
  })

  it('fails when an operation other than the in-flight one ran twice', () => {
    const other = inFlightRefund({ toolExecutions: { 'tool#1 payments.refund': 2, 'tool#2 ledger.record': 2 } })
    const message = messageOf(() => expect(report(other)).toResumeWithoutReexecution())
    expect(message).toContain('tool#2 ledger.record ran 2 times, outside the in-flight window')
    expect(message).not.toContain('payments.refund ran')
  })

  it('fails when the run never reached the boundary, or the resume failed', () => {
    const unreached = row({ step: 'tool#3', crashed: false, resumed: true, error: 'the run never reached tool#3 (after-append): it exited with 0' })
    const resumeFailed = row({ step: 'model#2', when: 'before-append', resumed: false, error: 'the resume exited with 1: Error: boom' })
    const resumeFailedQuietly = row({ step: 'tool#2', resumed: false })
    expect(messageOf(() => expect(report(unreached, resumeFailed, resumeFailedQuietly)).toResumeWithoutReexecution())).toMatchInlineSnapshot(`
      "expect(outcome).toResumeWithoutReexecution() // crash report

      Expected: every boundary resumes, and nothing but the in-flight operation runs twice
      Received: 3 problems in scenario "refund":
        • killed at tool#3 (after-append): the run never reached tool#3 (after-append): it exited with 0
        • killed at model#2 (before-append): the resume failed: the resume exited with 1: Error: boom
        • killed at tool#2 (after-append): the resume failed

      An operation outside the in-flight window ran again: its result was not journaled before the agent used it (an unwrapped tool? wrap it with lab.tools), or the agent changed between the runs."
    `)
  })

  it('throws when received is not a crash report', () => {
    expect(messageOf(() => expect(capitalsOutcome()).toResumeWithoutReexecution())).toMatchInlineSnapshot(`
      "expect(outcome).toResumeWithoutReexecution() // crash report

      [fluxlab] toResumeWithoutReexecution expects the report of \`await s.crashMatrix(agent)\` (or \`{ scenario, rows: [await s.crashAt(...)] }\`)."
    `)
    expect(() => expect({ scenario: 'refund', rows: 'nope' }).toResumeWithoutReexecution()).toThrow(/expects the report of `await s\.crashMatrix\(agent\)`/)
    expect(() => expect({ rows: [] }).toResumeWithoutReexecution()).toThrow(/expects the report of/)
    expect(() => expect(null).not.toResumeWithoutReexecution()).toThrow(/expects the report of/)
  })
})

describe('.not.toResumeWithoutReexecution', () => {
  it('passes when a finished operation ran again', () => {
    expect(report(row({ toolExecutions: { 'tool#1 payments.refund': 2 } }))).not.toResumeWithoutReexecution()
  })

  it('fails when every boundary resumed without re-execution', () => {
    expect(messageOf(() => expect(report(row(), inFlightRefund())).not.toResumeWithoutReexecution())).toMatchInlineSnapshot(`
      "expect(outcome).not.toResumeWithoutReexecution() // crash report

      Expected: not every boundary resumes, and nothing but the in-flight operation runs twice
      Received:     2 boundaries of scenario "refund" resumed without re-execution"
    `)
    expect(messageOf(() => expect(report(row())).not.toResumeWithoutReexecution())).toContain('1 boundary of scenario "refund" resumed without re-execution')
  })
})
