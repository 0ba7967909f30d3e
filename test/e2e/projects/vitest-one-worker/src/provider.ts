// An OpenAI provider: its client is built with the provider.
import OpenAI from 'openai'

export class OpenAIProvider {
  readonly client: OpenAI

  constructor({ apiKey, fetch }: { apiKey: string; fetch?: typeof globalThis.fetch }) {
    this.client = new OpenAI({ apiKey, fetch, maxRetries: 0 })
  }

  async chat(content: string, model = 'gpt-4o-mini'): Promise<string | null> {
    const response = await this.client.chat.completions.create({ model, messages: [{ role: 'user', content }] })
    return response.choices[0].message.content
  }

  async stream(content: string, model = 'gpt-4o-mini'): Promise<string> {
    const stream = await this.client.chat.completions.create({ model, messages: [{ role: 'user', content }], stream: true })
    let text = ''
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? ''
    return text
  }
}
