/**
 * The fixture store port (issue 40 item 3): every byte `src/cassette` reads or writes goes through one small interface,
 * as vitest's snapshot state does all its I/O through `SnapshotEnvironment`. `src/cassette` parses and verifies bytes;
 * a store only keeps them. `nodeStore` (./node.ts) keeps them in files, `memoryStore` (./memory.ts) in a map, and
 * `fixtureStore()` (./current.ts) is the one in use.
 */

/** The files of one read of a fixture directory, all from one version of it. */
export interface StoredFiles {
  /** The bytes of each name asked for, in order (`undefined`: that file is missing). */
  files: Array<Uint8Array | undefined>
  /** The names the directory holds (a store's own temporary entries left out), for a message about a missing file. */
  entries: string[]
  /** What {@link FixtureStore.unchanged} compares: it says the files are still these. */
  stamp: unknown
}

/** Where contents that passed every check of their bytes are remembered (src/cassette/verified.ts), by key. */
export interface CheckedMemo {
  has(key: string): boolean
  add(key: string): void
}

/** A file opened for appending whole lines. */
export interface LineSink {
  append(text: string): void
  close(): void
}

/**
 * Where fixtures, journals and the files beside them are kept. Paths are the ones fluxlab resolves (a fixture
 * directory, a file in it); a store may keep them anywhere.
 * @example
 * const { files: [manifest, model] } = store.read('tests/scenarios/weather', ['scenario.yaml', 'model.jsonl'])!
 */
export interface FixtureStore {
  /** The files `names` of the fixture directory `dir` from one version of it, or `undefined` when `dir` is not there. */
  read(dir: string, names: readonly string[]): StoredFiles | undefined
  /** Whether the files `names` of `dir` are still the ones a read stamped `stamp` (a kept read is still good). */
  unchanged(dir: string, names: readonly string[], stamp: unknown): boolean
  /** Whether `path` is there (a fixture directory caught between the two renames of a swap counts as there). */
  exists(path: string): boolean
  /** One file's bytes, or `undefined` when it is missing. */
  readFile(file: string): Uint8Array | undefined
  /** Replace the fixture directory `dir` whole: `files` written, `drop` removed, every other entry kept; a reader sees one version. */
  writeFixture(dir: string, files: Readonly<Record<string, string>>, drop?: readonly string[]): void
  /** Replace one file whole: a reader sees the old content or the new. */
  writeFile(file: string, data: string): void
  /** `file` opened for appending whole lines (created when missing); `durable`: each line is kept before `append` returns. */
  appendTo(file: string, opts?: { durable?: boolean }): LineSink
  /** The directories under `root` (itself included) that hold a file named `marker`, sorted, each before what it holds. */
  list(root: string, marker: string): string[]
  /** Where checked contents are remembered now, or `undefined` for nowhere. */
  checked(): CheckedMemo | undefined
}
