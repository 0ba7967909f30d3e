// The app's assistant talks to the company's LLM gateway (OpenAI-shaped) with its own token. The
// client is built when the module loads, and the OpenAI SDK throws there without a token.
const { OpenAI } = require('openai')

const client = new OpenAI({ apiKey: process.env.MY_GATEWAY_TOKEN, baseURL: `${process.env.MY_GATEWAY_URL || 'https://llm-gateway.internal.example'}/v1` })

async function ask(question, c = client) {
  const stream = await c.chat.completions.create({ model: 'default', messages: [{ role: 'user', content: question }], stream: true })
  let text = ''
  for await (const chunk of stream) text += (chunk.choices[0] && chunk.choices[0].delta && chunk.choices[0].delta.content) || ''
  return text
}

/** One line for the UI: trimmed, ending with a full stop. */
function formatAnswer(text) {
  const t = text.trim()
  return /[.!?]$/.test(t) ? t : `${t}.`
}

/** A price as the shop prints it ("1,299.00 EUR"), as a number. */
function parsePrice(text) {
  return Number.parseFloat(text)
}

module.exports = { ask, client, formatAnswer, parsePrice }
