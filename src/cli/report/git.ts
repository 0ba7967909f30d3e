/**
 * `fluxlab report --since <rev>`: which fixtures differ from their version at a git revision, and that version, read
 * with git (`git diff`, `git ls-files`, `git ls-tree`, and the blobs with `git cat-file --batch`, `git show rev:path`
 * for many files in one process). The old version is written to a temporary directory and read from there by the
 * cassette layer, as any fixture is.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, posix, relative, resolve, sep } from 'node:path'
import { FILES } from '../../cassette/fixture-files.js'
import { CliError, EXIT } from '../errors.js'

export interface ChangedFixture {
  /** The fixture directory now (absolute; it may no longer exist). */
  dir: string
  /** Its files' paths at the revision, relative to the repository's top (none: it was added since). */
  oldFiles: string[]
}

function git(args: string[], cwd: string, input?: string): Buffer {
  const r = spawnSync('git', args, { cwd, input, maxBuffer: 1 << 30 })
  if (r.error) throw new CliError(EXIT.error, { failed: `run git ${args[0]}`, reason: r.error.message, fix: 'Install git, or run the report without --since' })
  if (r.status !== 0) {
    const reason = r.stderr.toString().trim().split('\n')[0] || `it exited with ${r.status}`
    throw new CliError(EXIT.error, { failed: `run git ${args.join(' ').slice(0, 80)}`, reason, fix: 'Check the revision and that this is your checkout' })
  }
  return r.stdout
}

const list = (out: Buffer) => out.toString('utf8').split('\0').filter(Boolean)

/**
 * The fixtures under `root` whose files differ between the revision and the working tree (staged, unstaged and
 * untracked files included), each with its files at the revision. A file outside every fixture (`.files/`) counts for none.
 * @example
 * changedFixtures('origin/main', '/repo/tests/scenarios').map((f) => f.dir)
 */
export function changedFixtures(rev: string, root: string, cwd = process.cwd()): { top: string; fixtures: ChangedFixture[] } {
  let top: string
  try {
    top = git(['rev-parse', '--show-toplevel'], cwd).toString().trim()
  } catch (e) {
    throw new CliError(EXIT.error, {
      failed: `compare the fixtures with ${rev}`,
      reason: `${cwd} is not in a git repository (${(e as CliError).parts.reason})`,
      fix: 'Run it in your checkout, or leave out --since',
    })
  }
  try {
    git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], top)
  } catch {
    throw new CliError(EXIT.error, {
      failed: `compare the fixtures with ${rev}`,
      reason: `git knows no commit "${rev}"`,
      fix: 'Name a branch, tag or commit that exists here (in CI, fetch it first: actions/checkout with fetch-depth: 0, or git fetch origin main)',
    })
  }
  const rel =
    relative(top, existsSync(root) ? realpathSync(root) : resolve(root))
      .split(sep)
      .join('/') || '.'
  const changed = new Set([
    ...list(git(['diff', '--name-only', '--no-renames', '-z', rev, '--', rel], top)),
    ...list(git(['ls-files', '--others', '--exclude-standard', '-z', '--', rel], top)),
  ])
  const old = list(git(['ls-tree', '-r', '-z', '--name-only', rev, '--', rel], top))
  const oldDirs = new Set(old.filter((f) => posix.basename(f) === FILES.manifest).map((f) => posix.dirname(f)))
  const isFixture = (d: string) => oldDirs.has(d) || existsSync(join(top, d, FILES.manifest))
  const dirs = new Set<string>()
  for (const file of changed) {
    for (let d = posix.dirname(file); d !== '.' && (rel === '.' || d === rel || d.startsWith(`${rel}/`)); d = posix.dirname(d)) {
      if (isFixture(d)) {
        dirs.add(d)
        break
      }
      if (d === rel) break
    }
  }
  const fixtures = [...dirs].sort().map((d) => ({ dir: join(top, d), oldFiles: oldDirs.has(d) ? old.filter((f) => posix.dirname(f) === d) : [] }))
  return { top, fixtures }
}

/**
 * Write a fixture's files as they were at the revision into a fresh directory under `into`, and return it.
 * @example
 * const then = fixtureAt('origin/main', top, changed.oldFiles, scratch)
 */
export function fixtureAt(rev: string, top: string, files: readonly string[], into: string): string {
  const out = mkdtempSync(join(into, 'fx-'))
  const batch = git(['cat-file', '--batch'], top, files.map((f) => `${rev}:${f}\n`).join(''))
  let at = 0
  for (const f of files) {
    const nl = batch.indexOf(10, at)
    const head = batch.subarray(at, nl).toString().split(' ')
    if (head[1] !== 'blob')
      throw new CliError(EXIT.error, { failed: `read ${f} at ${rev}`, reason: `git answered "${head.join(' ')}"`, fix: 'Check the revision' })
    const size = Number(head[2])
    const path = join(out, posix.basename(f))
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, batch.subarray(nl + 1, nl + 1 + size))
    at = nl + 1 + size + 1
  }
  return out
}

/**
 * A scratch directory for the old versions (the caller removes it).
 * @example
 * const scratch = scratchDir()
 */
export const scratchDir = (): string => mkdtempSync(join(tmpdir(), 'fluxlab-report-'))
