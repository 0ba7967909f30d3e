import { afterEach, describe, expect, test } from 'vitest'
import { offlineError } from './refusals.js'

describe('offlineError', () => {
  afterEach(() => {
    delete process.env.FLUX_OFFLINE
  })

  test('names a message to an MCP server over stdio as one, not as a POST to a host', () => {
    process.env.FLUX_OFFLINE = '1'
    const e = offlineError(new Request('stdio://acme/', { method: 'POST', body: '{}' }), 'in test "t"')
    expect(e.code).toBe('FLUX_OFFLINE')
    expect(e.message).toContain('Failed to send an MCP message to the stdio server acme in test "t": FLUX_OFFLINE=1 forbids every live request')
  })

  test("a test with no fixture where recording is off is the cause, even under FLUX_OFFLINE: its fixture's place and the command that records it", () => {
    const noFixture = { dir: 'tests/scenarios/a', record: "npx vitest run a.test.ts -t '^a$'" }
    const request = new Request('http://127.0.0.1:4010/health')
    for (const offline of [true, false]) {
      if (offline) process.env.FLUX_OFFLINE = '1'
      else delete process.env.FLUX_OFFLINE
      const e = offlineError(request, 'in test "a"', noFixture)
      expect(e.code).toBe('FLUX_NO_RECORDING')
      expect(e.message).toContain('Failed to send GET 127.0.0.1:4010/health in test "a": there is no fixture at tests/scenarios/a and recording is off here')
      expect(e.message).toContain(offline ? 'FLUX_OFFLINE=1 forbids every live request, this one too' : 'no app mock answered this request')
      expect(e.message).toContain("Record the test where provider keys are available with `npx vitest run a.test.ts -t '^a$'` and commit tests/scenarios/a/")
    }
  })
})
