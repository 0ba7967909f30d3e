import { existsSync, readdirSync, statSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { FILES } from './fixture-files.js'

const SKIP_DIRS = new Set(['node_modules', '.git'])

/**
 * Every fixture directory (one holding `scenario.yaml`) under `root`, forks included
 * (`<scenario>/forks/<id>/`), sorted so parents come before their forks.
 * @example
 * findFixtures('tests/scenarios') // ['/abs/tests/scenarios/capital', '/abs/tests/scenarios/capital/forks/inject-3']
 */
export function findFixtures(root: string): string[] {
  const out: string[] = []
  const walk = (dir: string): void => {
    let names: string[]
    try {
      names = readdirSync(dir)
    } catch {
      return
    }
    if (names.includes(FILES.manifest)) out.push(dir)
    for (const name of names.sort()) {
      if (SKIP_DIRS.has(name) || name.startsWith('.')) continue
      const full = join(dir, name)
      try {
        if (statSync(full).isDirectory()) walk(full)
      } catch {
        // a dangling link or a directory that vanished mid-walk: not a fixture
      }
    }
  }
  if (existsSync(root)) walk(root)
  return out
}

/**
 * For a fork (`<parent>/forks/<id>/`), its parent fixture directory.
 * @example
 * forkParent('/x/tests/scenarios/triage/forks/inject-3') // '/x/tests/scenarios/triage'
 */
export function forkParent(dir: string): string | undefined {
  const forks = dirname(dir)
  if (basename(forks) !== 'forks') return undefined
  const parent = dirname(forks)
  return existsSync(join(parent, FILES.manifest)) ? parent : undefined
}
