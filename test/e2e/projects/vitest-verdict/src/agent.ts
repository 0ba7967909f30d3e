// The app's assistant: one OpenAI client for the whole app, built when the module loads. The SDK
// reads OPENAI_API_KEY and OPENAI_BASE_URL then, and throws without a key.
import OpenAI from 'openai'

export const client = new OpenAI()

export async function ask(question: string, c: OpenAI = client): Promise<string> {
  const stream = await c.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: question }], stream: true })
  let text = ''
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? ''
  return text
}

/** One line for the UI: trimmed, ending with a full stop. */
export function formatAnswer(text: string): string {
  const t = text.trim()
  return /[.!?]$/.test(t) ? t : `${t}.`
}

/** A price as the shop prints it ("1,299.00 EUR"), as a number. */
export function parsePrice(text: string): number {
  return Number.parseFloat(text)
}
