/**
 * The child process of a crash-cut test (`Scenario.crashAt` / `crashMatrix`): loads the
 * agent module, runs it durably against the recorded world, and prints one JSON line.
 * Env: FLUX_CHILD_AGENT (module path or URL), FLUX_CHILD_EXPORT (default `default`),
 * FLUX_CHILD_WORLD (scenario fixture dir), FLUX_CHILD_STATE (journal dir), FLUX_CHILD_REDACT (the scenario's
 * `redact` options, JSON), FLUX_CRASH_AT.
 */
import { pathToFileURL } from 'node:url'
import type { Lab } from '../scenario/scenario.js'
import { decodeRedact } from '../scenario/crash.js'
import { durable } from './durable.js'

async function main(): Promise<void> {
  const env = process.env
  const spec = env.FLUX_CHILD_AGENT ?? ''
  const mod = (await import(/^[a-z]+:/i.test(spec) ? spec : pathToFileURL(spec).href)) as Record<string, unknown>
  const agent = mod[env.FLUX_CHILD_EXPORT || 'default']
  if (typeof agent !== 'function') {
    process.stderr.write(
      `[fluxlab] Failed to load the crash-test agent: ${spec} has no function export "${env.FLUX_CHILD_EXPORT || 'default'}". Export the agent as (lab) => ` +
        `Promise<result>.\n`,
    )
    process.exit(3)
  }
  const { result, resurrected } = await durable(env.FLUX_CHILD_STATE ?? '', agent as (lab: Lab) => unknown, {
    world: env.FLUX_CHILD_WORLD,
    redact: decodeRedact(env.FLUX_CHILD_REDACT),
  })
  process.stdout.write(`${JSON.stringify({ result: result ?? null, resurrected: resurrected ?? null })}\n`)
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error)?.stack ?? String(e)}\n`)
  process.exit(1)
})
