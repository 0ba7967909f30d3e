import http from 'node:http'
import { describe, expect, it } from 'vitest'

describe('status', () => {
  it('should read the status page over node:http', async () => {
    const body = await new Promise<string>((resolve, reject) => {
      http
        .get(`${process.env.STATUS_URL}/status`, (res) => {
          let text = ''
          res.on('data', (d) => (text += d))
          res.on('end', () => resolve(text))
        })
        .on('error', reject)
    })
    expect(JSON.parse(body)).toEqual({ ok: true })
  })

  it('should parse a price (known to fail: it drops the thousands)', () => {
    expect(Number.parseFloat('1,299.00')).toBe(1299)
  })
})
