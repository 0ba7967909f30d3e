import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { absorbHint, createNormalizer, normalizeValue, type NormalizeRule } from './normalize.js'

const norm = (rules: NormalizeRule[], s: string) => normalizeValue(s, createNormalizer(rules).rules)

describe('the built-in normalize rules', () => {
  test.each([
    ['on 2026-12-03.', 'on <date>.'],
    ['at 2026-12-03T15:30:00Z!', 'at <datetime>!'],
    ['at 2026-12-03T15:30:00.123456+05:30 and 2026-12-03 15:30', 'at <datetime> and <datetime>'],
    ['at 2026-12-03T15:30-0800', 'at <datetime>'],
    ['not 2026-13-03, not 12026-12-03, not 2026-12-031', 'not 2026-13-03, not 12026-12-03, not 2026-12-031'],
  ])("'iso-dates': %j", (s, out) => expect(norm(['iso-dates'], s)).toBe(out))

  test.each([
    ['id 7f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f.', 'id <uuid>.'],
    ['id 7F1C2D3E-5A6B-1C7D-BE9F-0A1B2C3D4E5F', 'id <uuid>'],
    ['v8 7f1c2d3e-5a6b-8c7d-8e9f-0a1b2c3d4e5f', 'v8 <uuid>'],
    [
      'not 7f1c2d3e-5a6b-9c7d-8e9f-0a1b2c3d4e5f nor 7f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f0',
      'not 7f1c2d3e-5a6b-9c7d-8e9f-0a1b2c3d4e5f nor 7f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f0',
    ],
  ])("'uuids': %j", (s, out) => expect(norm(['uuids'], s)).toBe(out))

  test.each([
    ['gpt-4o-2024-08-06', 'gpt-4o-<date>'],
    ['gpt-4o-mini-2024-07-18', 'gpt-4o-mini-<date>'],
    ['claude-3-5-sonnet-20241022', 'claude-3-5-sonnet-<date>'],
    ['use claude-sonnet-4-20250514 now', 'use claude-sonnet-4-<date> now'],
    ['anthropic.claude-3-5-sonnet-20241022-v2:0', 'anthropic.claude-3-5-sonnet-<date>-v2:0'],
    ['gpt-4o and 2024-08-06 and gemini-2.5-flash', 'gpt-4o and 2024-08-06 and gemini-2.5-flash'],
  ])("'model-dates': %j", (s, out) => expect(norm(['model-dates'], s)).toBe(out))

  test("'temp-paths': the random segment after a temp root, and never the rest of the line", () => {
    const root = join(tmpdir(), 'vitest-x1y2z3')
    expect(norm(['temp-paths'], `read ${root}/report.txt, then answer.\nNext line`)).toBe('read <tmp>/report.txt, then answer.\nNext line')
    expect(norm(['temp-paths'], 'cwd "/tmp/flux-AbC123/a b.txt"')).toBe('cwd "<tmp>/a b.txt"')
    expect(norm(['temp-paths'], 'in /var/folders/8x/q2w3e4r5t6_y7u8i9o0p/T/tmp-123-abc/out.json')).toBe('in <tmp>/out.json')
    expect(norm(['temp-paths'], '/tmpfoo/x and /home/me/tmp/x')).toBe('/tmpfoo/x and /home/me/tmp/x')
  })

  test('an unknown built-in is an error naming the built-ins; the marker is absent without rules and follows the rules', () => {
    expect(() => createNormalizer(['dates' as NormalizeRule])).toThrow(
      /FLUX_BAD_CONFIG[\s\S]*"dates" is not a built-in rule[\s\S]*'iso-dates', 'uuids', 'temp-paths', 'model-dates'/,
    )
    expect(createNormalizer([]).marker).toBeUndefined()
    expect(createNormalizer(['uuids']).marker).toMatch(/^v1:[0-9a-f]{8}$/)
    expect(createNormalizer([{ pattern: /a/g, replace: 'b' }]).marker).not.toBe(createNormalizer([{ pattern: /a/, replace: 'b' }]).marker)
  })
})

describe('absorbHint', () => {
  const changed = (recorded: unknown, actual: unknown) => [{ path: 'messages[0].content', kind: 'changed' as const, recorded, actual }]
  test('names the one built-in that makes both values equal, or the fewest that do together, or nothing', () => {
    expect(absorbHint(changed('on 2026-12-02', 'on 2026-12-03'))).toBe(
      "; the normalize rule 'iso-dates' would absorb this difference: fluxlab({ normalize: ['iso-dates'] })",
    )
    expect(absorbHint(changed('gpt-4o-20240806', 'gpt-4o-20241120'))).toContain("rule 'model-dates'")
    expect(absorbHint(changed('2026-12-02 7f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f', '2026-12-03 0b9c1b7e-3f4a-4d2b-9a8e-1c2d3e4f5a6b'))).toContain(
      "rules 'iso-dates', 'uuids'",
    )
    expect(absorbHint(changed('on 2026-12-02', 'on Thursday'))).toBe('')
    expect(absorbHint(changed(1, 2))).toBe('')
    expect(absorbHint([{ path: 'tools', kind: 'added', actual: [] }])).toBe('')
  })
})
