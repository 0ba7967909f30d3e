import { describe, expect, it } from 'vitest'
import { encodeFrame, FRAME, FrameDecoder } from './frames.js'

describe('frames', () => {
  it('decodes frames split anywhere across reads, keeping each payload whole', () => {
    const wire = Buffer.concat([
      encodeFrame(FRAME.head, '{"status":200}'),
      encodeFrame(FRAME.data, new Uint8Array([0xe2, 0x82])),
      encodeFrame(FRAME.data, 'data: x\n\n'),
      encodeFrame(FRAME.end),
    ])
    for (const cut of [1, 3, 5, 7, wire.length - 1]) {
      const d = new FrameDecoder()
      const frames = [...d.push(wire.subarray(0, cut)), ...d.push(wire.subarray(cut))]
      expect(frames.map((f) => [f.type, Buffer.from(f.payload).toString('latin1')])).toEqual([
        [FRAME.head, '{"status":200}'],
        [FRAME.data, '\xe2\x82'],
        [FRAME.data, 'data: x\n\n'],
        [FRAME.end, ''],
      ])
    }
  })
})
