/**
 * The two ways fluxlab writes a file: whole (temp file + fsync + rename, so a reader sees the old
 * content or the new, never half) and by appending lines (one write each, optionally flushed to disk).
 */
import { randomBytes } from 'node:crypto'
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs'
import { dirname, join, basename } from 'node:path'

/**
 * Write a file so that a reader sees the old content or the new, never half:
 * a temp file in the same directory, fsync, rename.
 * @example
 * writeFileAtomic('tests/scenarios/x/model.jsonl', lines.join('\n'))
 */
export function writeFileAtomic(file: string, data: string): void {
  mkdirSync(dirname(file), { recursive: true })
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`)
  try {
    const fd = openSync(tmp, 'w')
    try {
      writeAll(fd, data)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(tmp, file)
  } catch (e) {
    rmSync(tmp, { force: true })
    throw e
  }
}

/**
 * A file opened for appending whole lines (created when missing; its directory must exist). Each
 * `append` is one write(2) of the whole text, so lines from parallel writers do not interleave; with
 * `durable`, it is also flushed to disk (fsync) before `append` returns.
 * @example
 * const out = new AppendFile(join(dir, 'journal.jsonl'), { durable: true })
 * out.append(`${JSON.stringify(entry)}\n`)
 * out.close()
 */
export class AppendFile {
  private fd: number | undefined

  constructor(
    readonly file: string,
    private readonly opts: { durable?: boolean } = {},
  ) {
    this.fd = openSync(file, 'a')
  }

  append(text: string): void {
    if (this.fd === undefined) throw new Error(`${this.file} is closed`)
    writeAll(this.fd, text)
    if (this.opts.durable) fsyncSync(this.fd)
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
  }
}

/** One write of the whole text where the kernel takes it at once (always, for a line of a regular file); the rest after. */
function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8')
  for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off)
}
