import { FluxError } from '../../errors.js'
import { isReplayKey } from '../../context/replay-keys.js'
import { judgeProvider } from '../../providers/registry.js'
import type { Rubric } from '../rubric.js'

/** Where a judge model is reached and with which key. */
export interface JudgeEndpoint {
  baseURL: string
  /** Absent for a provider that needs none (a local OpenAI-compatible server). */
  key?: string
}

const envName = (provider: string) => provider.toUpperCase().replace(/[^A-Z0-9]+/g, '_')
/** fluxlab's replay placeholder is not a key: a judge that got it would answer 401. */
const read = (env: NodeJS.ProcessEnv, name: string) => {
  const v = env[name]?.trim()
  return v && !isReplayKey(v) ? v : undefined
}

/**
 * The base URL and key of a model rubric, from its options and the environment.
 * A provider a family names (`judge.providers` in its codec: openai, anthropic, google)
 * needs a key; other providers need a base URL
 * (`baseURL` or `<PROVIDER>_BASE_URL`) and use `<PROVIDER>_API_KEY` when it is set.
 * @example
 * resolveEndpoint(Rubric.model('openai/gpt-4.1-mini'), process.env, 'grade "x" with openai/gpt-4.1-mini')
 */
export function resolveEndpoint(rubric: Rubric, env: NodeJS.ProcessEnv, what: string): JudgeEndpoint {
  const provider = rubric.provider ?? ''
  // @note the defaults belong to the provider, whatever `api` it speaks (`Rubric.model('anthropic/…', { api: 'openai' })`).
  const known = judgeProvider(provider).defaults
  const baseVar = known?.baseVar ?? `${envName(provider)}_BASE_URL`
  const baseURL = (rubric.transport.baseURL ?? read(env, baseVar) ?? known?.baseURL)?.replace(/\/+$/, '')
  if (!baseURL)
    throw new FluxError('FLUX_BAD_CONFIG', {
      failed: what,
      reason: `fluxlab does not know where "${provider}" is served`,
      fix: `Pass its OpenAI-compatible base URL: Rubric.model('${rubric.model}', { baseURL: 'https://…/v1' }), or set ${baseVar}.`,
    })
  const keyVars = keyVarsFor(rubric)
  const key = keyVars.map((k) => read(env, k)).find((k) => k !== undefined)
  if (!key && (known || rubric.transport.apiKeyEnv))
    throw new FluxError('FLUX_BAD_CONFIG', {
      failed: what,
      reason: `${keyVars.join(' / ')} ${keyVars.length > 1 ? 'are' : 'is'} not set, and grading live needs the judge's key`,
      fix: `Set ${keyVars[0]} to re-grade. A plain test run needs no key: it grades from judge.jsonl.`,
    })
  return key ? { baseURL, key } : { baseURL }
}

/**
 * The env vars a model rubric reads its key from, first match wins.
 * @example
 * keyVarsFor(Rubric.model('google/gemini-2.5-flash')) // ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY']
 */
export function keyVarsFor(rubric: Rubric): string[] {
  if (rubric.transport.apiKeyEnv) return [rubric.transport.apiKeyEnv]
  const provider = rubric.provider ?? ''
  const known = judgeProvider(provider).defaults
  return known ? [...known.keyVars] : [`${envName(provider)}_API_KEY`]
}
