import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { scanText } from '../../cassette/scan.js'
import { parse } from '../args.js'
import { fixtureRoot, loadConfig } from '../config.js'
import { CliError, EXIT } from '../errors.js'
import { display } from '../fixtures.js'
import type { Output } from '../output.js'

const SKIP_DIRS = new Set(['node_modules', '.git'])
/** Larger files are skipped with a note: fixtures are capped at FLUX_CASSETTE_MAX_BYTES per body, far below this. */
const MAX_FILE_BYTES = 64 * 1024 * 1024

/**
 * `fluxlab scan [paths…]`: the fixture secret scanner over any files; `file:line:rule` per finding, never the value.
 * @example
 * await scanCommand(['tests/scenarios'], out) // 1 when something was found
 */
export async function scanCommand(argv: string[], out: Output): Promise<number> {
  const { values, positionals } = parse('scan', argv, { dir: { type: 'string' }, config: { type: 'string' } })
  const { options } = await loadConfig(values.config)
  const disable = options.redact?.disable ?? []
  const paths = positionals.length ? positionals.map((p) => resolve(p)) : [fixtureRoot(values.dir, options)]
  const missing = paths.filter((p) => !existsSync(p))
  if (missing.length)
    throw new CliError(EXIT.error, {
      failed: 'scan for secrets',
      reason: `${missing.map((p) => display(p)).join(', ')} ${missing.length > 1 ? 'do' : 'does'} not exist`,
      fix: positionals.length ? 'Pass existing files or directories' : 'Pass the paths to scan, or --dir <fixture root>',
    })
  const files = paths.flatMap((p) => (statSync(p).isDirectory() ? walk(p) : [p]))
  let found = 0
  const withFindings = new Set<string>()
  files.forEach((file, i) => {
    if (files.length > 20) out.progress(`scanning ${i + 1}/${files.length} ${display(file)}`)
    const size = statSync(file).size
    if (size > MAX_FILE_BYTES) {
      out.note(`skipped ${display(file)}: ${size} bytes is over the scan limit`)
      return
    }
    if (isBinary(file)) return
    for (const f of scanText(readFileSync(file, 'utf8'))) {
      if (disable.includes(f.rule)) continue
      found++
      withFindings.add(file)
      out.line(`${display(file)}:${f.line ?? 1}:${f.rule}${f.path ? ` ${out.c.dim(`(at ${f.path})`)}` : ''}`)
    }
  })
  out.clearProgress()
  if (found) {
    out.error({
      failed: 'pass the secret scan',
      reason:
        `${found} secret-looking value${found > 1 ? 's' : ''} in ${withFindings.size} of ${files.length} file${files.length > 1 ? 's' : ''}, listed ` +
        `above as file:line:rule`,
      fix:
        'Remove them, and rotate any that were committed; for a fixture, re-record with FLUX_GOLDEN=update, or add a rule with redact.replace in ' +
        'fluxlab.config.mjs',
    })
    return EXIT.failed
  }
  out.note(`scanned ${files.length} file${files.length === 1 ? '' : 's'}: no secrets found`)
  return EXIT.ok
}

function walk(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name)
    let st: ReturnType<typeof statSync>
    try {
      st = statSync(full)
    } catch {
      continue
    }
    if (st.isDirectory()) {
      if (!SKIP_DIRS.has(name) && !name.startsWith('.')) out.push(...walk(full))
    } else if (st.isFile()) out.push(full)
  }
  return out
}

/** A NUL byte in the first 8 KiB: not text, nothing a fixture or a prompt would hold. */
function isBinary(file: string): boolean {
  const fd = openSync(file, 'r')
  try {
    const buf = Buffer.alloc(8192)
    const n = readSync(fd, buf, 0, buf.length, 0)
    return buf.subarray(0, n).includes(0)
  } finally {
    closeSync(fd)
  }
}
