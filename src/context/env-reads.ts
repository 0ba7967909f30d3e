/**
 * Issue 24: a skipped test that has a fixture names the variable that closed its gate. A gate is evaluated while
 * its file is collected (`describe.skipIf(!process.env.FIREWORKS_API_KEY)`, `const hasKey = …` at module top), so
 * the runner setups watch the credential-like variables the file's code reads until its tests start. Those it found set
 * go into the manifests the file records (a gate on two keys, one of whose values never reached a fixture's wire, opens
 * on replay as it did live); those it found unset name the variable that closed a skipped test's gate.
 */
import { isReplayKey, looksLikeCredential } from './replay-keys.js'

/** What a test file's code read of the credential-like variables while it was collected. */
export interface KeyReads {
  /** Read and set to a real value: a recording made now ran with them (its fixtures name them, so a replay fills them). */
  set: string[]
  /** Read and unset (or empty): what may have closed a skip gate. */
  unset: string[]
}

/**
 * Watch `holder.env` (a test file's `process`) until the returned stop runs: it restores the object and returns the
 * credential-like variables the suite's own code read, set or unset, sorted; `onUnset` and `onSet` hear of each one as it
 * is read (a file whose tests are all skipped runs no hook to stop the watch in). Reads through `in` count too
 * (`'GROQ_API_KEY' in process.env`); a placeholder fluxlab filled counts as neither.
 * @note the watched object is a Proxy over the same environment: writes, deletes and enumeration reach it as before,
 * and a child process spawned meanwhile inherits it as it is.
 * @example
 * const stop = watchKeyReads(process, (name) => report(name))
 * beforeAll(() => { reads = stop() })
 */
export function watchKeyReads(holder: { env: NodeJS.ProcessEnv }, onUnset?: (name: string) => void, onSet?: (name: string) => void): () => KeyReads {
  const env = holder.env
  const set = new Set<string>()
  const unset = new Set<string>()
  const note = (k: string | symbol, value: string | undefined) => {
    if (typeof k !== 'string' || set.has(k) || unset.has(k) || !looksLikeCredential(k) || k.startsWith('FLUX_') || isReplayKey(value)) return
    // Only the suite's own code decides a gate: an SDK that looks for an optional variable (the openai client reads
    // OPENAI_WEBHOOK_SECRET when it is built) is not one. The frame after this trap's is the reader's.
    const reader = new Error().stack?.split('\n')[3] ?? ''
    if (/[\\/]node_modules[\\/]/.test(reader)) return
    if (value) {
      set.add(k)
      onSet?.(k)
    } else {
      unset.add(k)
      onUnset?.(k)
    }
  }
  let watched: NodeJS.ProcessEnv
  try {
    watched = new Proxy(env, {
      get(target, k) {
        const v = Reflect.get(target, k)
        note(k, typeof v === 'string' ? v : undefined)
        return v
      },
      has(target, k) {
        const present = Reflect.has(target, k)
        note(k, present && typeof k === 'string' ? (Reflect.get(target, k) as string | undefined) : undefined)
        return present
      },
      // @note a write goes to the environment itself: through the proxy as receiver, setting a variable that is set
      // already defines it with a value-only descriptor, which `process.env` refuses (ts-jest's `process.env.TS_JEST = '1'`).
      set: (target, k, v) => Reflect.set(target, k, v),
    })
    holder.env = watched
  } catch {
    return () => ({ set: [], unset: [] })
  }
  let stopped = false
  return () => {
    if (!stopped && holder.env === watched) holder.env = env
    stopped = true
    return { set: [...set].sort(), unset: [...unset].sort() }
  }
}
