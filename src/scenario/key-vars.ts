import type { Fixture } from '../cassette/cell.js'
import { replayKeyVars } from '../context/replay-keys.js'
import { codecFor } from '../providers/registry.js'

/**
 * The key variables a replay of `fixture` fills: its manifest's `keyVars`, else (a fixture recorded before fluxlab
 * noted them) the vendor table's for its provider hosts; a host the table does not know (a local server, a gateway)
 * counts as the vendor hosts of its recorded calls' families.
 * @example
 * fillReplayKeys(process.env, fixtureKeyVars(fixture))
 */
export function fixtureKeyVars(fixture: Pick<Fixture, 'manifest' | 'model'>): string[] {
  if (Array.isArray(fixture.manifest.keyVars)) return replayKeyVars(fixture.manifest)
  const families = new Set(fixture.model.map((c) => c.family))
  return replayKeyVars(fixture.manifest, [...families].flatMap((f) => codecFor(f).hosts))
}
