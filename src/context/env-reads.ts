/**
 * Issue 24: a skipped test that has a fixture names the variable that closed its gate. A gate is evaluated while
 * its file is collected (`describe.skipIf(!process.env.FIREWORKS_API_KEY)`, `const hasKey = …` at module top), so
 * the runner setups watch the credential-like variables the file's code reads and finds unset until its tests start.
 */
import { looksLikeCredential } from './replay-keys.js'

/**
 * Watch `holder.env` (a test file's `process`) until the returned stop runs: it restores the object and returns the
 * credential-like variables read while unset, sorted. Reads through `in` count too (`'GROQ_API_KEY' in process.env`).
 * @note the watched object is a Proxy over the same environment: writes, deletes and enumeration reach it as before,
 * and a child process spawned meanwhile inherits it as it is.
 * @example
 * const stop = watchUnsetKeys(process)
 * beforeAll(() => { unset = stop() })
 */
export function watchUnsetKeys(holder: { env: NodeJS.ProcessEnv }): () => string[] {
  const env = holder.env
  const seen = new Set<string>()
  const note = (k: string | symbol, present: boolean) => {
    if (present || typeof k !== 'string' || seen.has(k) || !looksLikeCredential(k) || k.startsWith('FLUX_')) return
    // Only the suite's own code decides a gate: an SDK that looks for an optional variable (the openai client reads
    // OPENAI_WEBHOOK_SECRET when it is built) is not one. The frame after this trap's is the reader's.
    const reader = new Error().stack?.split('\n')[3] ?? ''
    if (!/[\\/]node_modules[\\/]/.test(reader)) seen.add(k)
  }
  let watched: NodeJS.ProcessEnv
  try {
    watched = new Proxy(env, {
      get(target, k) {
        const v = Reflect.get(target, k)
        note(k, v !== undefined && v !== '')
        return v
      },
      has(target, k) {
        const present = Reflect.has(target, k)
        note(k, present)
        return present
      },
    })
    holder.env = watched
  } catch {
    return () => []
  }
  let stopped = false
  return () => {
    if (!stopped && holder.env === watched) holder.env = env
    stopped = true
    return [...seen].sort()
  }
}
