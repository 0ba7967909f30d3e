// The search service the agent's tools call, run as its own process (as it is in production) on PORT.
import { createServer } from 'node:http'

const CITIES = ['Paris', 'Rome', 'Lisbon', 'Oslo']

createServer((req, res) => {
  const url = new URL(req.url, 'http://localhost')
  if (url.pathname === '/health') return res.writeHead(200).end('ok')
  const q = (url.searchParams.get('q') ?? '').toLowerCase()
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ hits: CITIES.filter((c) => c.toLowerCase() === q) }))
}).listen(Number(process.env.PORT))
