/** The test that recorded a fixture (scenario.yaml `source`), and the exact command that records it again. */
import { join, relative, sep } from 'node:path'
import { testCommand } from '../runners/command.js'
import { fixtureStore } from '../store/current.js'
import type { SourceTest } from './cell.js'
import { isRunnerToken } from './cell-fields.js'
import { FILES } from './fixture-files.js'
import { parseManifestText } from './manifest-text.js'

/**
 * The test a fixture says it was recorded by (scenario.yaml `source`), or `undefined` when it names none or cannot be read.
 * @example
 * readSource('tests/scenarios/weather') // { file: 'test/weather.test.ts', name: 'answers', runner: 'vitest' }
 */
export function readSource(dir: string): SourceTest | undefined {
  try {
    const bytes = fixtureStore().readFile(join(dir, FILES.manifest))
    return bytes ? sourceOf(parseManifestText(Buffer.from(bytes).toString('utf8'))) : undefined
  } catch {
    return undefined
  }
}

function sourceOf(manifest: unknown): SourceTest | undefined {
  const src = (manifest as { source?: Record<string, unknown> } | null)?.source
  if (!src || typeof src.file !== 'string' || typeof src.name !== 'string') return undefined
  const runner = isRunnerToken(src.runner) ? (src.runner as string) : undefined
  const nth = typeof src.nth === 'number' && Number.isInteger(src.nth) && src.nth > 1 ? { nth: src.nth } : {}
  return { file: src.file, name: src.name, ...nth, ...(typeof src.project === 'string' ? { project: src.project } : {}), ...(runner ? { runner } : {}) }
}

/**
 * The exact command that re-records a fixture (`FLUX_GOLDEN=update` and what recorded it): its source test, or the
 * `npx fluxlab record` line of a CLI recording (whose scenario.yaml keeps the program as `input.command`); `undefined`
 * when the manifest names neither.
 * @example
 * rerecordCommand(fx.manifest, fx.dir) // "FLUX_GOLDEN=update npx vitest run test/weather.test.ts -t '^answers$'"
 */
export function rerecordCommand(manifest: unknown, dir: string): string | undefined {
  const source = sourceOf(manifest)
  if (source) return testCommand(source, 'FLUX_GOLDEN=update')
  const m = manifest as { name?: unknown; input?: { command?: unknown } } | null
  const command = m?.input?.command
  const path = dir.split(sep).join('/')
  if (typeof m?.name !== 'string' || !Array.isArray(command) || !command.length || !command.every((a) => typeof a === 'string') || !path.endsWith(`/${m.name}`))
    return undefined
  const abs = path.slice(0, -m.name.length - 1)
  const root = relative(process.cwd(), abs).split(sep).join('/')
  return `FLUX_GOLDEN=update npx fluxlab record ${m.name} --dir ${root === '' ? '.' : root.startsWith('..') ? abs : root} -- ${command.join(' ')}`
}
