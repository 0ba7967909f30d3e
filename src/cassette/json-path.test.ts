import { describe, expect, it } from 'vitest'
import { ANY, appendPath, parsePath, replaceAtPath } from './json-path.js'

describe('appendPath', () => {
  it('writes names with dots, indexes in brackets and odd keys quoted', () => {
    expect(appendPath('', 'request')).toBe('request')
    expect(appendPath('request', 'x-api-key')).toBe('request.x-api-key')
    expect(appendPath('response.chunks', 3)).toBe('response.chunks[3]')
    expect(appendPath('m', 'odd.key')).toBe('m["odd.key"]')
    expect(appendPath('', 'a b')).toBe('["a b"]')
  })
})

describe('parsePath', () => {
  it('parses names, indexes, wildcards and quoted keys', () => {
    expect(parsePath('messages[*].content')).toEqual(['messages', ANY, 'content'])
    expect(parsePath('$.a[0].b.*')).toEqual(['a', 0, 'b', ANY])
    expect(parsePath(String.raw`m["odd.key"]['it\'s'].x-api-key`)).toEqual(['m', 'odd.key', "it's", 'x-api-key'])
  })

  it('reads back what appendPath writes', () => {
    const path = appendPath(appendPath(appendPath('request', 'odd.key'), 2), 'text')
    expect(parsePath(path)).toEqual(['request', 'odd.key', 2, 'text'])
  })

  it.each(['a..b', 'a[', 'a[x]', 'a.', 'a["b]'])('rejects the malformed path %s', (p) => {
    expect(() => parsePath(p)).toThrow(/invalid JSON path/)
  })
})

describe('replaceAtPath', () => {
  it('replaces every matched node in a copy and leaves the input alone', () => {
    const input = { a: [{ b: 1 }, { b: 2 }, { c: 3 }] }
    expect(replaceAtPath(input, parsePath('a[*].b'), (n) => `<${String(n)}>`)).toEqual({ a: [{ b: '<1>' }, { b: '<2>' }, { c: 3 }] })
    expect(input).toEqual({ a: [{ b: 1 }, { b: 2 }, { c: 3 }] })
  })

  it('ignores paths that do not exist', () => {
    const input = { a: 'x' }
    expect(replaceAtPath(input, parsePath('a.b[3].c'), () => 0)).toEqual({ a: 'x' })
    expect(replaceAtPath([1], parsePath('[5]'), () => 0)).toEqual([1])
  })
})
