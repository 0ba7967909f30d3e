import type { Fixture } from '../cassette/cell.js'
import { replayKeyVars } from '../context/replay-keys.js'
import { codecFor } from '../providers/registry.js'

/**
 * The key variables a replay of `fixture` fills: its manifest's `keyVars`, else (a fixture recorded before fluxlab
 * noted them) the vendors' (each family's `vendors`) for its provider hosts; a host no vendor names (a local server, a gateway)
 * counts as the vendor hosts of its recorded calls' families.
 * @example
 * fillReplayKeys(process.env, fixtureKeyVars(fixture))
 */
export function fixtureKeyVars(fixture: Pick<Fixture, 'manifest' | 'model'>): string[] {
  // @note issue 28: a kept fixture read is the same object at every `scenario()` (and frozen): found once, not per run.
  let vars = known.get(fixture)
  if (!vars) known.set(fixture, (vars = keyVarsOf(fixture)))
  return [...vars]
}

const known = new WeakMap<object, readonly string[]>()

function keyVarsOf(fixture: Pick<Fixture, 'manifest' | 'model'>): string[] {
  if (Array.isArray(fixture.manifest.keyVars)) return replayKeyVars(fixture.manifest)
  const families = new Set<string>()
  // @note a cell that failed its check when the fixture was handed out (./handout.ts) is skipped here, and refused when the
  // replay serves it, with its own error.
  for (let i = 0; i < fixture.model.length; i++)
    try {
      families.add(fixture.model[i].family)
    } catch {}
  return replayKeyVars(
    fixture.manifest,
    [...families].flatMap((f) => codecFor(f as Parameters<typeof codecFor>[0]).hosts),
  )
}
