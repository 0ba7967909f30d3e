/** A deterministic PRNG (mulberry32), uniform in [0, 1). */
export function prng(seed: number): () => number
/** The mutation classes, in the order the bench prints them. */
export const CLASSES: readonly string[]
/** One seeded mutation of a fixture's files (name → text); byte-level damage comes back as a Buffer. */
export function mutateFixture(files: Record<string, string>, rand: () => number): { files: Record<string, string | Buffer>; cls: string }
