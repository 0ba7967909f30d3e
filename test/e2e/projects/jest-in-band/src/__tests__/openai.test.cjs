let mockOpenAI
jest.mock('openai', () => jest.fn().mockImplementation(() => mockOpenAI))

const { OpenAIProvider } = require('../provider.cjs')

describe('OpenAIProvider', () => {
  beforeEach(() => {
    jest.clearAllMocks()
    mockOpenAI = { chat: { completions: { create: jest.fn().mockResolvedValue({ choices: [{ message: { content: 'Paris' } }] }) } } }
  })

  it('should answer from the mocked client', async () => {
    expect(await new OpenAIProvider({ apiKey: 'test-api-key' }).chat('What is the capital of France?')).toBe('Paris')
    expect(mockOpenAI.chat.completions.create).toHaveBeenCalledTimes(1)
  })

  it('should read the status page over fetch', async () => {
    const res = await fetch(`${process.env.STATUS_URL}/status`)
    expect(await res.json()).toEqual({ ok: true })
  })
})
