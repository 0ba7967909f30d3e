// One model call through this process's route to an address where nothing listens: prints the error it gets.
import { route } from './route.mjs'

process.env.ROUTE_TO = process.env.DOWN_URL
route('dispatcher')
try {
  await fetch(`${process.env.VENDOR_URL}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${process.env.OPENAI_API_KEY}` },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Is anyone there?' }] }),
  })
  console.log('answered')
} catch (e) {
  console.log(`${e.name}: ${e.message} (${e.cause?.code})`)
}
