/**
 * Provider key variables that SDK constructors insist on (`new OpenAI()` throws
 * without `OPENAI_API_KEY`). In replay no request leaves the process, so a
 * missing key is filled with a placeholder for the duration of the run.
 */
const PROVIDER_KEY_VARS = [
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'GOOGLE_GENERATIVE_AI_API_KEY',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
] as const

/**
 * The key variables a replay fills: the missing ones. The AWS pair goes together: a secret is
 * filled only beside a filled key id, so a real key id is never signed with a placeholder secret
 * (that request would not carry the placeholder, and would reach AWS).
 * @example
 * missingKeyVars({ OPENAI_API_KEY: 'sk-…' }) // ['ANTHROPIC_API_KEY', …, 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']
 */
export function missingKeyVars(env: NodeJS.ProcessEnv): string[] {
  return PROVIDER_KEY_VARS.filter((k) => !env[k] && (k !== 'AWS_SECRET_ACCESS_KEY' || !env.AWS_ACCESS_KEY_ID))
}

export const REPLAY_KEY = 'fluxlab-replay-no-key'

const KEY = Symbol.for('fluxlab.replay-keys.v1')
const g = globalThis as Record<symbol, unknown>
const st = (g[KEY] ??= { refs: 0, filled: [] as string[] }) as { refs: number; filled: string[] }

/**
 * Fill missing provider key variables until the returned release runs (ref-counted across concurrent runs).
 * @example
 * const release = fillReplayKeys()
 * try { await agent() } finally { release() }
 */
export function fillReplayKeys(env: NodeJS.ProcessEnv = process.env): () => void {
  if (st.refs++ === 0) {
    st.filled = missingKeyVars(env)
    for (const k of st.filled) env[k] = REPLAY_KEY
  }
  let released = false
  return () => {
    if (released) return
    released = true
    if (--st.refs === 0) {
      for (const k of st.filled) if (env[k] === REPLAY_KEY) delete env[k]
      st.filled = []
    }
  }
}
