import { describe, expect, test } from 'vitest'
import { keysFrom } from './options.js'
import { carriedKeyVars, fillReplayKeys, isReplayKey, missingKeyVars, placeholderIn, replayKeyFor, replayKeyVars } from './replay-keys.js'
import { redactText } from '../secrets/redact.js'

const request = (url: string, headers: Record<string, string> = {}) => new Request(url, { headers })

describe('carriedKeyVars', () => {
  const env = {
    GROQ_API_KEY: 'gsk_live_4f9a8b7c6d5e4f3a2b1c',
    OPENAI_API_KEY: 'sk-proj-abcdef0123456789abcdef',
    MY_GATEWAY: 'gw-9f8e7d6c5b4a3f2e1d0c',
    FIREWORKS_API_KEY: 'fw_3ZpQr8sTuVwXyZ0123',
    GEMINI_API_KEY: 'AIzaSyD-0123456789abcdefghijklmnopqrstu',
    GOOGLE_CLOUD_PROJECT: 'my-project-20261202',
    OPENAI_BASE_URL: 'http://127.0.0.1:4000/v1',
    SHORT_TOKEN: 'abc',
    HOME: '/root',
  }

  test('names the variables whose values a request carries in a credential header, not the others', () => {
    expect(carriedKeyVars(request('https://api.groq.com/openai/v1/chat/completions', { authorization: `Bearer ${env.GROQ_API_KEY}` }), env)).toEqual([
      'GROQ_API_KEY',
    ])
    expect(
      carriedKeyVars(request('https://api.fireworks.ai/inference/v1/chat/completions', { authorization: `Bearer ${env.FIREWORKS_API_KEY}` }), env),
    ).toEqual(['FIREWORKS_API_KEY'])
  })

  test('a variable with any name counts when a credential header carries its value (a gateway token)', () => {
    expect(carriedKeyVars(request('https://llm.internal/v1/chat/completions', { 'x-gateway-token': env.MY_GATEWAY }), env)).toEqual(['MY_GATEWAY'])
  })

  test("a key in the query or the path counts; a project id in the path does not (its name is no credential's)", () => {
    const url = `https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent?key=${env.GEMINI_API_KEY}`
    expect(carriedKeyVars(request(url), env)).toEqual(['GEMINI_API_KEY'])
    expect(carriedKeyVars(request(`https://aiplatform.googleapis.com/v1/projects/${env.GOOGLE_CLOUD_PROJECT}/locations/us/x:predict`), env)).toEqual([])
    expect(carriedKeyVars(request(`https://api.telegram.org/bot${env.OPENAI_API_KEY}/sendMessage`), env)).toEqual(['OPENAI_API_KEY'])
  })

  test('a base URL, a short value, a placeholder and a value in a plain header are never keys', () => {
    const r = request('http://127.0.0.1:4000/v1/chat/completions', {
      'x-home': env.HOME,
      'x-short': 'abc',
      'x-note': env.MY_GATEWAY,
      referer: env.OPENAI_BASE_URL,
    })
    expect(carriedKeyVars(r, { ...env, ANTHROPIC_API_KEY: replayKeyFor('ANTHROPIC_API_KEY') })).toEqual([])
  })

  test('an AWS key id brings its secret along: the SDK needs both, and the secret never reaches the wire', () => {
    const aws = { AWS_ACCESS_KEY_ID: 'AKIAIOSFODNN7EXAMPLE', AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' }
    const r = request('https://bedrock-runtime.us-east-1.amazonaws.com/model/x/converse', {
      authorization: `AWS4-HMAC-SHA256 Credential=${aws.AWS_ACCESS_KEY_ID}/20261202/us-east-1/bedrock/aws4_request, Signature=abc`,
    })
    expect(carriedKeyVars(r, aws)).toEqual(['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'])
  })
})

describe('replayKeyVars', () => {
  test("a manifest's own names win; a fixture recorded before them falls back to its provider hosts", () => {
    expect(replayKeyVars({ keyVars: ['FIREWORKS_API_KEY'], providerHosts: ['api.openai.com'] })).toEqual(['FIREWORKS_API_KEY'])
    expect(replayKeyVars({ keyVars: [], providerHosts: ['api.openai.com'] })).toEqual([])
    expect(replayKeyVars({ providerHosts: ['api.anthropic.com', 'api.groq.com:443', 'my-res.openai.azure.com'] })).toEqual([
      'ANTHROPIC_API_KEY',
      'GROQ_API_KEY',
      'AZURE_OPENAI_API_KEY',
      'AZURE_API_KEY',
    ])
    expect(replayKeyVars({ providerHosts: ['127.0.0.1:4000'] })).toEqual([])
  })
})

describe('replayKeyVars of an older fixture recorded against a host the table does not know', () => {
  test("counts as its recorded families' vendor hosts, and only then", () => {
    expect(replayKeyVars({ providerHosts: ['127.0.0.1:41591'] }, ['api.openai.com'])).toEqual(['OPENAI_API_KEY'])
    expect(replayKeyVars({ providerHosts: ['127.0.0.1:41591'] })).toEqual([])
    expect(replayKeyVars({ providerHosts: ['api.anthropic.com'] }, ['api.openai.com'])).toEqual(['ANTHROPIC_API_KEY'])
    expect(replayKeyVars({ keyVars: [], providerHosts: ['127.0.0.1:41591'] }, ['api.openai.com'])).toEqual([])
  })
})

describe('placeholders', () => {
  test("pass a suite's check of a key's form (a vendor's public prefix, 20 characters or more), and no secret rule takes them", () => {
    const form: Record<string, (k: string) => boolean> = {
      OPENAI_API_KEY: (k) => k.startsWith('sk-') && k.length >= 20,
      ANTHROPIC_API_KEY: (k) => k.startsWith('sk-ant-') && k.length >= 20,
      XAI_API_KEY: (k) => k.startsWith('xai-') && k.length >= 20,
      GROQ_API_KEY: (k) => k.startsWith('gsk_'),
      GEMINI_API_KEY: (k) => k.startsWith('AIza'),
    }
    for (const [name, ok] of Object.entries(form)) {
      const key = replayKeyFor(name)
      expect([name, ok(key)]).toEqual([name, true])
      expect(redactText(`Authorization: Bearer ${key}, x-goog-api-key: ${key}`)).toBe(`Authorization: Bearer ${key}, x-goog-api-key: ${key}`)
    }
  })

  test('each names its variable, and a request carrying one says which', () => {
    expect(replayKeyFor('GROQ_API_KEY')).toBe('gsk_fluxlab-replay-no-key-GROQ_API_KEY')
    expect(replayKeyFor('MY_GATE')).toBe('fluxlab-replay-no-key-MY_GATE')
    expect(placeholderIn(`Bearer ${replayKeyFor('ANTHROPIC_API_KEY')}`)).toBe('ANTHROPIC_API_KEY')
    expect(placeholderIn('Bearer fluxlab-replay-no-key-GROQ_API_KEY')).toBe('GROQ_API_KEY')
    expect(placeholderIn('https://x.test/?key=fluxlab-replay-no-key-GEMINI_API_KEY')).toBe('GEMINI_API_KEY')
    expect(placeholderIn('Bearer sk-real')).toBeUndefined()
    expect(isReplayKey(replayKeyFor('A_KEY'))).toBe(true)
    expect(isReplayKey('sk-real')).toBe(false)
  })

  test('only unset names are filled, and the AWS secret only beside a placeholder key id', () => {
    expect(missingKeyVars({ OPENAI_API_KEY: 'sk-x' }, ['OPENAI_API_KEY', 'GROQ_API_KEY'])).toEqual(['GROQ_API_KEY'])
    expect(missingKeyVars({}, ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'])).toEqual(['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'])
    expect(missingKeyVars({ AWS_ACCESS_KEY_ID: 'AKIAREAL' }, ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'])).toEqual([])
  })

  test('exactly the names given are filled, and removed when the last holder lets go', () => {
    const env: NodeJS.ProcessEnv = { OPENAI_API_KEY: 'sk-real' }
    const file = fillReplayKeys(env, ['OPENAI_API_KEY', 'GROQ_API_KEY'])
    expect(env).toEqual({ OPENAI_API_KEY: 'sk-real', GROQ_API_KEY: 'gsk_fluxlab-replay-no-key-GROQ_API_KEY' })
    const run = fillReplayKeys(env, ['MY_GATE'])
    expect(env.MY_GATE).toBe('fluxlab-replay-no-key-MY_GATE')
    run()
    expect(env.MY_GATE).toBe('fluxlab-replay-no-key-MY_GATE')
    file()
    expect(env).toEqual({ OPENAI_API_KEY: 'sk-real' })
  })

  test('keys come from the option and FLUX_KEYS; a name that is not a variable name is FLUX_BAD_CONFIG', () => {
    expect(keysFrom({ keys: ['A_KEY'] }, { FLUX_KEYS: 'B_KEY, C_KEY,' })).toEqual(['A_KEY', 'B_KEY', 'C_KEY'])
    expect(() => keysFrom({}, { FLUX_KEYS: 'MY-KEY' })).toThrow('FLUX_BAD_CONFIG: Failed to read FLUX_KEYS: "MY-KEY" is not an environment variable name')
  })
})
