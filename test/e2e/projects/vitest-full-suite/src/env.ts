// The app's settings: it refuses to load without a key, as many apps do.
if (!process.env.OPENAI_API_KEY) throw new Error('OPENAI_API_KEY is not set')

export const OPENAI_API_KEY = process.env.OPENAI_API_KEY
export const PROVIDER_URL = process.env.PROVIDER_URL
