// The helpers live next to the app's client, so loading them builds it (and needs MY_GATEWAY_TOKEN).
const { formatAnswer, parsePrice } = require('../src/gateway.cjs')

test('formats an answer as one sentence', () => {
  expect(formatAnswer('  Paris ')).toBe('Paris.')
})

// A known bug of the app: the thousands separator stops the parse.
test('parses a price with a thousands separator', () => {
  expect(parsePrice('1,299.00 EUR')).toBe(1299)
})
