import { expect, test } from 'vitest'

// The weather API the agent's forecast tool calls: the vendor's service, or WEATHER_API_URL where it is set.
const api = process.env.WEATHER_API_URL ?? 'https://api.weather-vendor.example'

test('reads the forecast the forecast tool would give', async () => {
  const res = await fetch(`${api}/v2/forecast?city=Paris`)
  expect(res.status).toBe(200)
  expect(await res.json()).toEqual({ city: 'Paris', forecast: 'sunny', high: 24 })
})
