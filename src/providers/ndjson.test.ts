import { describe, expect, it } from 'vitest'
import { readLines } from './ndjson.js'

const encoder = new TextEncoder()

/** A body that arrives in these chunks. */
function body(...chunks: Array<string | Uint8Array>): ReadableStreamDefaultReader<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(c) {
      for (const chunk of chunks) c.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk)
      c.close()
    },
  }).getReader()
}

describe('readLines', () => {
  it('hands over each line once its line break arrives, across chunk boundaries and split characters', async () => {
    const lines: string[] = []
    const euro = encoder.encode('{"p":"€"}\n')
    await readLines(body('{"a":1}\n{"b"', ':2}\n', euro.slice(0, 7), euro.slice(7)), (line) => lines.push(line))
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"p":"€"}'])
  })

  it('skips blank lines and drops a last line cut before its line break', async () => {
    const lines: string[] = []
    await readLines(body('one\n\n  \ntwo\nthr'), (line) => lines.push(line))
    expect(lines).toEqual(['one', 'two'])
  })

  it('rejects with the error the line handler throws', async () => {
    await expect(readLines(body('not json\n'), (line) => JSON.parse(line))).rejects.toThrow(SyntaxError)
  })
})
