import { describe, expect, test } from 'vitest'
import { keysFrom } from './options.js'
import { fillReplayKeys, missingKeyVars, REPLAY_KEY } from './replay-keys.js'

describe('replay keys', () => {
  test('the built-in names cover OpenAI, Anthropic, Gemini/Google, Azure OpenAI, the OpenAI-compatible providers and AWS', () => {
    expect(missingKeyVars({})).toEqual(expect.arrayContaining(['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_API_KEY', 'AZURE_OPENAI_API_KEY', 'AZURE_API_KEY', 'GROQ_API_KEY', 'AWS_ACCESS_KEY_ID']))
    expect(missingKeyVars({ OPENAI_API_KEY: 'sk-x' })).not.toContain('OPENAI_API_KEY')
  })

  test('names the user lists are filled too, and removed with the rest; a later fill adds its own names', () => {
    const env: NodeJS.ProcessEnv = { OPENAI_API_KEY: 'sk-real' }
    const first = fillReplayKeys(env, ['LITELLM_API_KEY'])
    expect(env.LITELLM_API_KEY).toBe(REPLAY_KEY)
    expect(env.ANTHROPIC_API_KEY).toBe(REPLAY_KEY)
    expect(env.OPENAI_API_KEY).toBe('sk-real')
    const second = fillReplayKeys(env, ['MY_GATE'])
    expect(env.MY_GATE).toBe(REPLAY_KEY)
    first()
    expect(env.MY_GATE).toBe(REPLAY_KEY)
    second()
    expect(env).toEqual({ OPENAI_API_KEY: 'sk-real' })
  })

  test('keys come from the option and FLUX_KEYS; a name that is not a variable name is FLUX_BAD_CONFIG', () => {
    expect(keysFrom({ keys: ['A_KEY'] }, { FLUX_KEYS: 'B_KEY, C_KEY,' })).toEqual(['A_KEY', 'B_KEY', 'C_KEY'])
    expect(() => keysFrom({}, { FLUX_KEYS: 'MY-KEY' })).toThrow('FLUX_BAD_CONFIG: Failed to read FLUX_KEYS: "MY-KEY" is not an environment variable name')
  })
})
