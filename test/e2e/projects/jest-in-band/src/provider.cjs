// An OpenAI provider with request hooks: its client is built with the provider.
const OpenAI = require('openai')

class OpenAIProvider {
  constructor({ apiKey, hooks = {} }) {
    this.client = new OpenAI({ apiKey, maxRetries: 0 })
    this.hooks = hooks
  }

  async chat(content, model = 'gpt-4o-mini') {
    const request = { model, messages: [{ role: 'user', content }] }
    this.hooks.beforeRequest?.(request)
    const response = await this.client.chat.completions.create(request)
    this.hooks.afterRequest?.(request, response)
    return response.choices[0].message.content
  }

  async stream(content, model = 'gpt-4o-mini') {
    const stream = await this.client.chat.completions.create({ model, messages: [{ role: 'user', content }], stream: true })
    let text = ''
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? ''
    return text
  }
}

module.exports = { OpenAIProvider }
