import { resolve } from 'node:path'
import { listJournals } from '../../cassette/journal.js'
import { parse } from '../args.js'
import { loadConfig } from '../config.js'
import { CliError, EXIT } from '../errors.js'
import { display } from '../fixtures.js'
import type { Output } from '../output.js'

/**
 * `fluxlab sessions --store DIR`: the durable journals under DIR, unfinished ones marked.
 * Listing only reads: it never resumes, repairs or removes anything.
 * @example
 * await sessionsCommand(['--store', './state'], out)
 */
export async function sessionsCommand(argv: string[], out: Output): Promise<number> {
  const { values } = parse('sessions', argv, { store: { type: 'string' }, json: { type: 'boolean' }, config: { type: 'string' } })
  if (!values.store)
    throw new CliError(EXIT.usage, {
      failed: 'list durable sessions',
      reason: 'no --store was given',
      fix: 'Pass the directory durable() journals into, e.g. `npx fluxlab sessions --store ./state`',
    })
  const store = resolve(String(values.store))
  // The journals were secret-scanned without the rules the project's redactor disables: read them the same way.
  const { options } = await loadConfig(values.config)
  const journals = listJournals(store, { disable: options.redact?.disable })
  if (values.json) {
    out.line(
      JSON.stringify({
        schema: 'fluxlab.sessions/v1',
        store,
        sessions: journals.map((j) => ({
          dir: j.dir,
          status: j.meta.status,
          startedAt: j.meta.startedAt,
          completedAt: j.meta.completedAt ?? null,
          resumes: j.meta.resumes,
          cells: j.cells,
          inFlight: j.intents - j.cells,
          tornTail: j.tornTail,
        })),
      }),
    )
    return EXIT.ok
  }
  if (journals.length === 0) {
    out.line(`no durable sessions under ${display(store)}`)
    return EXIT.ok
  }
  for (const j of journals) {
    const unfinished = j.meta.status === 'running'
    const mark = unfinished ? out.c.yellow('● unfinished') : out.c.green('✓ complete  ')
    const inFlight = Math.max(0, j.intents - j.cells)
    const extra = unfinished ? ` · ${inFlight} in flight${j.tornTail ? ' · last line cut by a crash' : ''} · resumes on the next durable() call` : ''
    out.line(
      `${mark} ${display(j.dir)} · ${j.cells} results journaled · started ${j.meta.startedAt}${j.meta.resumes ? ` · resumed ${j.meta.resumes}×` : ''}${extra}`,
    )
  }
  return EXIT.ok
}
