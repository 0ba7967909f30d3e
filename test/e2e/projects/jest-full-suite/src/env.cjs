// The app's settings: it refuses to load without a key, as many apps do.
if (!process.env.OPENAI_API_KEY) throw new Error('OPENAI_API_KEY is not set')

module.exports = { OPENAI_API_KEY: process.env.OPENAI_API_KEY, PROVIDER_URL: process.env.PROVIDER_URL }
