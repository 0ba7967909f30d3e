import { join, relative, resolve } from 'node:path'
import { fixtureStore } from '../store/current.js'
import type { FixtureStore, LineSink } from '../store/store.js'
import { stableJson } from './stable-json.js'
import type { ModelCell, ToolCell } from './cell.js'
import { cellSchemas, loadZod } from './cell-schema.js'
// @note issue 39 (bench section 6): the fixtures' lazy yaml, so a process that imports `fluxlab` loads it only for a journal
import { yaml } from './fixture-files.js'
import { refuseSecrets } from './fixture-error.js'
import { readJsonl } from './jsonl.js'
import { scanText } from './scan.js'
import type { ScanOptions } from './scan-value.js'
import { FluxError } from '../errors.js'
import { VERSION } from '../version.js'

export const JOURNAL_FILE = 'journal.jsonl'
const JOURNAL_META = 'journal.yaml'
const JOURNAL_FORMAT = 1

/** Written (and fsynced) before a live operation is dispatched. */
export interface IntentEntry {
  kind: 'intent'
  seq: number
  step: string
  key: string
}

/** Written (and fsynced) after an operation finished, before its result reaches the agent. */
export type CellEntry = { kind: 'cell'; channel: 'model'; cell: ModelCell } | { kind: 'cell'; channel: 'tool'; cell: ToolCell }

export type JournalEntry = IntentEntry | CellEntry

/** What a journal.jsonl line must be: an intent, or a model or tool cell (checked as fixture cells are); built on first use, on the cells' copy of zod. */
const entrySchema = () => (builtEntrySchema ??= buildEntrySchema())
let builtEntrySchema: ReturnType<typeof buildEntrySchema> | undefined

function buildEntrySchema() {
  const z = loadZod()
  const { modelCell, toolCell } = cellSchemas()
  return z.discriminatedUnion(
    'kind',
    [
      z.looseObject({
        kind: z.literal('intent'),
        seq: z.number('expected a numeric "seq"'),
        step: z.string('expected a string "step"'),
        key: z.string('expected a string "key"'),
      }),
      z.discriminatedUnion(
        'channel',
        [
          z.looseObject({ kind: z.literal('cell'), channel: z.literal('model'), cell: modelCell }),
          z.looseObject({ kind: z.literal('cell'), channel: z.literal('tool'), cell: toolCell }),
        ],
        'expected "channel" to be "model" or "tool"',
      ),
    ],
    'expected a JSON object with "kind" "intent" or "cell"',
  )
}

/** What a resumed run did: never silent (SPEC §9). */
export interface ResurrectReport {
  /** Operations answered from the journal: no model call, no tool re-run. */
  servedFromJournal: number
  /** Operations the resumed run performed live. */
  ranLive: number
  /**
   * Operations that had started (their intent was journaled) but whose result
   * was not appended before the crash: they ran again on resume, so their side
   * effects may have happened twice (at-least-once).
   */
  inFlight: string[]
  /** Journaled results the resumed run never asked for (the agent took another path after a point the journal cannot anchor). */
  unanchored: string[]
  /** The journal's last line was cut mid-write by the crash and was ignored. */
  tornTail: boolean
}

export interface JournalMeta {
  formatVersion: number
  fluxlabVersion: string
  status: 'running' | 'complete'
  startedAt: string
  completedAt?: string
  resumes: number
}

/**
 * The append-only journal of one durable run: `journal.jsonl` (intents and
 * cells, each line flushed to disk before the operation goes on) and
 * `journal.yaml` (status, rewritten atomically).
 * @example
 * const j = Journal.open('./state/run-42')
 * j.appendIntent({ kind: 'intent', seq: 1, step: 'model#1', key })
 */
export class Journal {
  private out?: LineSink

  private constructor(
    private readonly store: FixtureStore,
    readonly dir: string,
    public meta: JournalMeta | undefined,
    readonly entries: JournalEntry[],
    /** The last line was cut mid-write (a crash during append); it was ignored. */
    readonly tornTail: boolean,
    /** The redactor's disabled rules: the secret scan of every read and append skips them too. */
    private readonly scan: ScanOptions,
  ) {}

  /**
   * Open (or prepare) the journal in `dir`. A torn last line is detected and ignored,
   * never parsed as a result; any other bad line is an error naming file and line.
   */
  static open(dir: string, opts: ScanOptions = {}): Journal {
    const store = fixtureStore()
    const file = join(dir, JOURNAL_FILE)
    const metaFile = join(dir, JOURNAL_META)
    const metaBytes = store.readFile(metaFile)
    const meta = metaBytes ? readMeta(metaFile, metaBytes) : undefined
    const { lines, tornTail } = readJsonl<JournalEntry>(file, {
      schema: entrySchema(),
      noun: 'journal',
      fix: 'The journal is damaged before its last line: discard the run by deleting its directory.',
      scan: { disable: opts.disable, fix: 'Remove the secret from the journal, or discard the run by deleting its directory.' },
      tornTail: true,
    })
    return new Journal(
      store,
      dir,
      meta,
      lines.map((l) => l.value),
      tornTail,
      { disable: opts.disable },
    )
  }

  /** True when a previous run started and never marked the journal complete. */
  get unfinished(): boolean {
    return this.meta?.status === 'running'
  }

  /** Start (or resume) writing: status `running`, the journal file opened for append. */
  begin(resume: boolean): void {
    this.meta =
      resume && this.meta
        ? { ...this.meta, status: 'running', resumes: this.meta.resumes + 1 }
        : { formatVersion: JOURNAL_FORMAT, fluxlabVersion: VERSION, status: 'running', startedAt: new Date().toISOString(), resumes: 0 }
    if (!resume) this.store.writeFile(join(this.dir, JOURNAL_FILE), '')
    else if (this.tornTail) this.dropTornTail()
    this.store.writeFile(join(this.dir, JOURNAL_META), yaml().stringify(this.meta))
    this.out = this.store.appendTo(join(this.dir, JOURNAL_FILE), { durable: true })
  }

  /** Append one entry and flush it to disk before returning. A secret in it writes nothing. */
  append(entry: JournalEntry): void {
    if (this.out === undefined) throw new Error('journal not begun')
    const line = `${stableJson(entry)}\n`
    refuseSecrets(scanText(line, JOURNAL_FILE, this.scan), {
      failed: `journal ${'step' in entry ? entry.step : entry.cell.step}`,
      reason: 'the entry holds a secret-looking value the redactor did not catch (credential_found); nothing was written',
      fix: 'Add a redaction rule (`redact: { replace: [...] }`).',
    })
    this.out.append(line)
    this.entries.push(entry)
  }

  /** Mark the run finished: a later `durable()` on this directory starts fresh instead of resuming. */
  complete(): void {
    this.close()
    if (!this.meta) return
    this.meta = { ...this.meta, status: 'complete', completedAt: new Date().toISOString() }
    this.store.writeFile(join(this.dir, JOURNAL_META), yaml().stringify(this.meta))
  }

  close(): void {
    this.out?.close()
    this.out = undefined
  }

  private dropTornTail(): void {
    const body = this.entries.map((e) => `${stableJson(e)}\n`).join('')
    this.store.writeFile(join(this.dir, JOURNAL_FILE), body)
  }
}

/**
 * The journals under a store directory (each a folder holding `journal.yaml`), for `fluxlab sessions`.
 * Listing reads only; it never resumes anything.
 * @example
 * listJournals('./state', { disable: config.redact?.disable }) // [{ dir: 'state/run-42', status: 'running', cells: 3, … }]
 */
export function listJournals(
  store: string,
  opts: ScanOptions = {},
): Array<{ dir: string; meta: JournalMeta; cells: number; intents: number; tornTail: boolean }> {
  const out = []
  // the store directory itself when it is a run's, else the runs directly under it
  const found = fixtureStore().list(store, JOURNAL_META)
  const top = found.find((d) => resolve(d) === resolve(store))
  const dirs = top ? [top] : found.filter((d) => resolve(d, '..') === resolve(store))
  for (const dir of dirs.sort()) {
    const j = Journal.open(dir, opts)
    if (!j.meta) continue
    out.push({
      dir,
      meta: j.meta,
      cells: j.entries.filter((e) => e.kind === 'cell').length,
      intents: j.entries.filter((e) => e.kind === 'intent').length,
      tornTail: j.tornTail,
    })
  }
  return out
}

function readMeta(file: string, bytes: Uint8Array): JournalMeta {
  const meta = yaml().parse(Buffer.from(bytes).toString('utf8')) as JournalMeta
  if (!meta || meta.formatVersion !== JOURNAL_FORMAT)
    throw new FluxError('FLUX_FORMAT_VERSION', {
      failed: `read journal ${rel(file)}`,
      reason: `formatVersion is ${JSON.stringify(meta?.formatVersion)}, this fluxlab reads ${JOURNAL_FORMAT}`,
      fix: 'Finish or discard the run with the fluxlab version that started it.',
    })
  return meta
}

const rel = (p: string) => relative(process.cwd(), p) || p
