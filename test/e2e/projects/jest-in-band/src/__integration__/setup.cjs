const getAPIKey = () => {
  const key = process.env.OPENAI_API_KEY
  if (!key) throw new Error('Missing OPENAI_API_KEY in environment.')
  return key
}

const skipIfNoAPIKey = () => {
  if (!process.env.OPENAI_API_KEY) {
    console.warn('Skipping OpenAI integration tests - no API key found')
    return describe.skip
  }
  return describe
}

module.exports = { getAPIKey, skipIfNoAPIKey }
