import { describe, expect, it } from 'vitest'
import { colorEnabled, Output } from './output.js'

function stream(isTTY: boolean) {
  const chunks: string[] = []
  return { isTTY, columns: 40, write: (s: string) => chunks.push(s) > 0, chunks } as unknown as NodeJS.WriteStream & { chunks: string[] }
}

describe('Output', () => {
  it('turns colours on for a terminal only, off under NO_COLOR, on with FORCE_COLOR', () => {
    expect(colorEnabled({ isTTY: true }, {})).toBe(true)
    expect(colorEnabled({ isTTY: false }, {})).toBe(false)
    expect(colorEnabled({ isTTY: true }, { NO_COLOR: '1' })).toBe(false)
    expect(colorEnabled({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true)
    expect(colorEnabled({ isTTY: true }, { FORCE_COLOR: '0' })).toBe(false)
  })

  it('shows a progress line on a terminal, clears it before the next line, and prints none when piped', () => {
    const tty = stream(true)
    const out = new Output(stream(false), tty)
    out.progress(`verifying 1/2 ${'x'.repeat(80)}`)
    out.note('done')
    expect(tty.chunks[0]).toMatch(/^\r\x1b\[2K.*verifying 1\/2 x+…/)
    expect(tty.chunks.slice(1)).toEqual(['\r\x1b[2K', '[fluxlab] done\n'])
    const piped = stream(false)
    new Output(stream(false), piped).progress('verifying 1/2')
    expect(piped.chunks).toEqual([])
  })

  it('never prints a secret, even one that reached a line', () => {
    const o = stream(false)
    new Output(o, stream(false)).line(`key ${['sk', 'proj', 'A'.repeat(30)].join('-')}`)
    expect(o.chunks[0]).toMatch(/^key \[REDACTED:[0-9a-f]{8}\]\n$/)
  })
})
