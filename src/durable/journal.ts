import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, readdirSync, writeSync } from 'node:fs'
import { join, relative } from 'node:path'
import stableStringify from 'fast-json-stable-stringify'
import YAML from 'yaml'
import { writeFileAtomic } from '../cassette/atomic.js'
import type { ModelCell, ToolCell } from '../cassette/cell.js'
import { describeFinding, scanText } from '../cassette/scan.js'
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
  private fd?: number

  private constructor(
    readonly dir: string,
    public meta: JournalMeta | undefined,
    readonly entries: JournalEntry[],
    /** The last line was cut mid-write (a crash during append); it was ignored. */
    readonly tornTail: boolean,
  ) {}

  /**
   * Open (or prepare) the journal in `dir`. A torn last line is detected and ignored,
   * never parsed as a result; any other bad line is an error naming file and line.
   */
  static open(dir: string): Journal {
    const file = join(dir, JOURNAL_FILE)
    const metaFile = join(dir, JOURNAL_META)
    const meta = existsSync(metaFile) ? readMeta(metaFile) : undefined
    if (!existsSync(file)) return new Journal(dir, meta, [], false)
    const text = readFileSync(file, 'utf8')
    const findings = scanText(text, JOURNAL_FILE)
    if (findings.length)
      throw new FluxError('FLUX_CREDENTIAL_FOUND', {
        failed: `read journal ${rel(file)}`,
        reason: `found ${findings.length} secret-looking value(s) (credential_found)`,
        fix: 'Remove the secret from the journal, or discard the run by deleting its directory.',
        details: findings.map(describeFinding),
      })
    const lines = text.split('\n')
    // @note every complete entry ends with '\n'; whatever follows the last '\n' was cut by a crash.
    const tail = lines.pop() ?? ''
    const entries: JournalEntry[] = []
    lines.forEach((line, i) => {
      if (line.trim() === '') return
      try {
        entries.push(JSON.parse(line) as JournalEntry)
      } catch (e) {
        throw new FluxError('FLUX_FIXTURE_INVALID', {
          failed: `read journal ${rel(file)}:${i + 1}`,
          reason: `not valid JSON (${(e as Error).message})`,
          fix: 'The journal is damaged before its last line: discard the run by deleting its directory.',
        })
      }
    })
    return new Journal(dir, meta, entries, tail.trim() !== '')
  }

  /** True when a previous run started and never marked the journal complete. */
  get unfinished(): boolean {
    return this.meta?.status === 'running'
  }

  /** Start (or resume) writing: status `running`, the journal file opened for append. */
  begin(resume: boolean): void {
    mkdirSync(this.dir, { recursive: true })
    this.meta = resume && this.meta
      ? { ...this.meta, status: 'running', resumes: this.meta.resumes + 1 }
      : { formatVersion: JOURNAL_FORMAT, fluxlabVersion: VERSION, status: 'running', startedAt: new Date().toISOString(), resumes: 0 }
    if (!resume) writeFileAtomic(join(this.dir, JOURNAL_FILE), '')
    else if (this.tornTail) this.dropTornTail()
    writeFileAtomic(join(this.dir, JOURNAL_META), YAML.stringify(this.meta))
    this.fd = openSync(join(this.dir, JOURNAL_FILE), 'a')
  }

  /** Append one entry and flush it to disk before returning. A secret in it writes nothing. */
  append(entry: JournalEntry): void {
    if (this.fd === undefined) throw new Error('journal not begun')
    const line = `${stableStringify(entry)}\n`
    const findings = scanText(line, JOURNAL_FILE)
    if (findings.length)
      throw new FluxError('FLUX_CREDENTIAL_FOUND', {
        failed: `journal ${'step' in entry ? entry.step : entry.cell.step}`,
        reason: 'the entry holds a secret-looking value the redactor did not catch (credential_found); nothing was written',
        fix: 'Add a redaction rule (`redact: { replace: [...] }`).',
        details: findings.map(describeFinding),
      })
    writeSync(this.fd, line)
    fsyncSync(this.fd)
    this.entries.push(entry)
  }

  /** Mark the run finished: a later `durable()` on this directory starts fresh instead of resuming. */
  complete(): void {
    this.close()
    if (!this.meta) return
    this.meta = { ...this.meta, status: 'complete', completedAt: new Date().toISOString() }
    writeFileAtomic(join(this.dir, JOURNAL_META), YAML.stringify(this.meta))
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
  }

  private dropTornTail(): void {
    const body = this.entries.map((e) => `${stableStringify(e)}\n`).join('')
    writeFileAtomic(join(this.dir, JOURNAL_FILE), body)
  }
}

/**
 * The journals under a store directory (each a folder holding `journal.yaml`), for `fluxlab sessions`.
 * Listing reads only; it never resumes anything.
 * @example
 * listJournals('./state') // [{ dir: 'state/run-42', status: 'running', cells: 3, … }]
 */
export function listJournals(store: string): Array<{ dir: string; meta: JournalMeta; cells: number; intents: number; tornTail: boolean }> {
  if (!existsSync(store)) return []
  const out = []
  const dirs = existsSync(join(store, JOURNAL_META)) ? [store] : readdirSync(store, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => join(store, d.name))
  for (const dir of dirs.sort()) {
    if (!existsSync(join(dir, JOURNAL_META))) continue
    const j = Journal.open(dir)
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

function readMeta(file: string): JournalMeta {
  const meta = YAML.parse(readFileSync(file, 'utf8')) as JournalMeta
  if (!meta || meta.formatVersion !== JOURNAL_FORMAT)
    throw new FluxError('FLUX_FORMAT_VERSION', {
      failed: `read journal ${rel(file)}`,
      reason: `formatVersion is ${JSON.stringify(meta?.formatVersion)}, this fluxlab reads ${JOURNAL_FORMAT}`,
      fix: 'Finish or discard the run with the fluxlab version that started it.',
    })
  return meta
}

const rel = (p: string) => relative(process.cwd(), p) || p
