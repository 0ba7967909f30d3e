/**
 * The facts of a provider family that are not its wire format: each family's codec carries its own, and the layers
 * above derive their tables from the registry (`familyTables` in `src/providers/registry.ts`), never from a list of
 * their own.
 */

/** A vendor serving a family's API: where, and where its SDKs find the key. */
export interface Vendor {
  /** Its API's host names, or a pattern for a set of them (Azure's resources, Bedrock's regions). */
  hosts: readonly (string | RegExp)[]
  /** The environment variables its SDKs read the key from, first match wins. */
  keyVars: readonly string[]
  /**
   * The public prefix of its keys (`sk-ant-`, `AIza`): a replay's placeholder key starts with it, so a suite that
   * checks a key's form before it trusts it lets the placeholder by as it lets the key by.
   */
  keyPrefix?: string
  /** The base-URL variables its SDKs read, the base each stands for when unset, and a version segment SDKs may leave out. */
  base?: { vars: readonly string[]; url: string; version?: string }
}

/** How a family's model ids are written, so a recorded id finds its price (`src/pricing/resolve.ts`). */
export interface ModelIds {
  /** A prefix an id may carry before the priced id (Bedrock's `us.anthropic.`), stripped first. */
  prefix?: RegExp
  /** The id (lowercased, prefixes dropped) as the price table writes it (Claude's `claude-haiku-4.5` is `claude-haiku-4-5`). */
  rewrite?(id: string): string
  /** Suffixes an id may carry on top of a priced one (a snapshot date, a version), each stripped in turn. */
  suffixes?: readonly RegExp[]
}

/** The optional facts of a family (members of its codec). */
export interface FamilyFacts {
  /** The vendors serving this family's API, for their key and base-URL variables. */
  vendors?: readonly Vendor[]
  /** Request or response headers that carry a secret besides `authorization`, `x-api-key` and `api-key`: always redacted, never kept. */
  sensitiveHeaders?: readonly string[]
  /**
   * Prefixes of the ids the API mints and a later request echoes back (`toolu` of `toolu_01…`): numbered by position in
   * a canonical request, so a replay still matches (`src/cassette/canonical.ts`).
   */
  mintedIds?: readonly string[]
  /** Objects whose `id` the client invents and echoes back (Gemini's `functionCall`): numbered like minted ids. */
  clientIdOwners?: readonly string[]
  /** How its model ids are written, for pricing. */
  modelIds?: ModelIds
}
