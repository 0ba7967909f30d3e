import { describe, expect, test } from 'vitest'
import { keptHeaders } from './http.js'

describe('keptHeaders', () => {
  test('keeps what a client reads and drops secrets, cookies, hop-by-hop headers, date and a decoded body encoding (SPEC §4)', () => {
    const headers = new Headers({
      'Content-Type': 'text/event-stream',
      'X-Request-Id': 'req_5f1d0c3e9a86953713a6dc1b17e399fd',
      'x-ratelimit-remaining-tokens': '149999993',
      'anthropic-ratelimit-requests-remaining': '49',
      'retry-after': '3',
      'retry-after-ms': '20',
      'openai-processing-ms': '547',
      date: 'Tue, 13 May 2025 14:54:09 GMT',
      'set-cookie': '__cf_bm=abc; path=/',
      'openai-organization': 'user-r3e61fpak04cbaokp5buoae4',
      'x-auth-token': 'tok_live_1b2c3d4e5f60718293a4b5c6d7e8f901',
      connection: 'keep-alive, x-hop',
      'x-hop': 'per-connection',
      'keep-alive': 'timeout=5',
      'content-encoding': 'gzip',
      'content-length': '120',
    })
    expect(keptHeaders(headers)).toEqual({
      'anthropic-ratelimit-requests-remaining': '49',
      'content-type': 'text/event-stream',
      'openai-processing-ms': '547',
      'retry-after': '3',
      'retry-after-ms': '20',
      'x-ratelimit-remaining-tokens': '149999993',
      'x-request-id': 'req_5f1d0c3e9a86953713a6dc1b17e399fd',
    })
  })
})
