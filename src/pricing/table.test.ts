import { describe, expect, it } from 'vitest'
import { listTrafficFiles, loadExchanges } from '../../test/support/traffic.js'
import { detectModelCall } from '../providers/registry.js'
import { costBreakdown, type PricedCall } from './cost.js'
import { PRICES, PRICES_AS_OF, type ModelPrice } from './table.js'

const isRate = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0

describe('PRICES', () => {
  it('is dated', () => {
    expect(PRICES_AS_OF).toMatch(/^\d{4}-\d{2}-\d{2}$/)
  })

  it('holds a valid price for every model', () => {
    for (const [id, p] of Object.entries(PRICES)) {
      expect(isRate(p.input) && isRate(p.output), id).toBe(true)
      for (const rate of [p.cacheRead, p.cacheWrite]) expect(rate === undefined || isRate(rate), id).toBe(true)
      if (p.cacheRead !== undefined) expect(p.cacheRead, `${id} cache hits cost less than input`).toBeLessThan(p.input)
      if (p.longContext) {
        expect(p.longContext.input, `${id} long-context input`).toBeGreaterThan(p.input)
        expect(p.longContext.output, `${id} long-context output`).toBeGreaterThan(p.output)
      }
    }
  })

  it('prices Claude 3.5–4.x cache writes at 1.25× and cache hits at 0.1× input', () => {
    const claude = Object.entries(PRICES).filter(([id]) => /^claude-(3-[57]|opus-4|sonnet-4|haiku-4)/.test(id))
    expect(claude.length).toBeGreaterThan(10)
    for (const [id, p] of claude) {
      expect(p.cacheWrite, id).toBeCloseTo(p.input * 1.25, 10)
      expect(p.cacheRead, id).toBeCloseTo(p.input * 0.1, 10)
    }
  })

  it('cannot be changed by a caller', () => {
    expect(Object.isFrozen(PRICES)).toBe(true)
    expect(Object.isFrozen(PRICES['gpt-4o'] as ModelPrice)).toBe(true)
    expect(Object.isFrozen(PRICES['gpt-5.5'].longContext)).toBe(true)
  })

  it('prices every model call recorded under test/fixtures/traffic', () => {
    const calls: PricedCall[] = []
    for (const file of listTrafficFiles())
      for (const [i, e] of loadExchanges(file).entries()) {
        const url = new URL(e.path, 'https://provider.test')
        const codec = detectModelCall(e.method, url)
        if (!codec) continue
        const body = typeof e.requestBody === 'string' ? JSON.parse(e.requestBody) : e.requestBody
        const res = codec.parseResponse(e.body, e.headers['content-type'], e.status, url)
        // The same fallback the session records: the response's model, else the request's.
        const model = res.model ?? (body === undefined ? undefined : codec.parseRequest(body, url).model)
        calls.push({ model, usage: res.usage, step: `${file} #${i + 1}` })
      }
    const b = costBreakdown(calls)
    expect(b.total).toBeGreaterThan(0)
    expect(Object.keys(b.byModel).sort()).toMatchInlineSnapshot(`
      [
        "claude-3-5-haiku-20241022",
        "claude-haiku-4-5-20251001",
        "claude-sonnet-4-20250514",
        "claude-sonnet-4-5-20250929",
        "claude-sonnet-4-6",
        "gemini-2.0-flash",
        "gemini-2.0-flash-exp",
        "gemini-2.5-flash",
        "gemini-3-flash-preview",
        "gemini-3-pro-preview",
        "gemini-3.1-pro-preview",
        "gpt-4.1-nano-2025-04-14",
        "gpt-4o",
        "gpt-4o-2024-08-06",
        "gpt-4o-mini-2024-07-18",
        "gpt-5-2025-08-07",
        "gpt-5-mini-2025-08-07",
        "gpt-5-nano-2025-08-07",
        "gpt-5.1-codex-max",
        "gpt-5.5-2026-04-23",
      ]
    `)
  })
})
