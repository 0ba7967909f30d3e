import { describe, expect, it } from 'vitest'
import { jsonArrayObjects, parseToolArgs } from './json.js'
import { loadExchanges } from './test-helpers.js'

describe('jsonArrayObjects', () => {
  it('reads every element of a recorded Gemini streamed array', () => {
    const body = loadExchanges('gemini/test_tools.yaml')[0].responseBody
    expect(body).toContain('}\n,\r\n{')
    expect(jsonArrayObjects(body)).toHaveLength(2)
  })

  it('skips braces and escaped quotes inside strings of a cut array', () => {
    expect(jsonArrayObjects('[{"t":"a \\"}\\" {"},\r\n{"u":"}"},\r\n{"v":')).toEqual([{ t: 'a "}" {' }, { u: '}' }])
  })
})

describe('parseToolArgs', () => {
  it('parses JSON, keeps unparsable text raw and reads empty as no arguments', () => {
    expect(parseToolArgs('{"a":1231,"b":2331}')).toEqual({ a: 1231, b: 2331 })
    expect(parseToolArgs('{"a":12')).toBe('{"a":12')
    expect(parseToolArgs('')).toEqual({})
    expect(parseToolArgs({ city: 'Paris' })).toEqual({ city: 'Paris' })
  })
})
