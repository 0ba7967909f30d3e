const { OpenAIProvider } = require('../provider.cjs')
const { getAPIKey, skipIfNoAPIKey } = require('./setup.cjs')

skipIfNoAPIKey()('OpenAI Integration', () => {
  let provider

  beforeAll(() => {
    provider = new OpenAIProvider({ apiKey: getAPIKey() })
  })

  it('should complete a simple chat', async () => {
    expect(await provider.chat('What is the capital of France?')).toContain('Paris')
  }, 30000)

  it('should stream a chat completion', async () => {
    expect(await provider.stream('What is the capital of Japan?')).toContain('Tokyo')
  }, 30000)
})
