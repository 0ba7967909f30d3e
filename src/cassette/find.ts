import { basename, dirname, join } from 'node:path'
import { fixtureStore } from '../store/current.js'
import { FILES } from './fixture-files.js'

/**
 * Every fixture directory (one holding `scenario.yaml`) under `root`, forks included
 * (`<scenario>/forks/<id>/`), sorted so parents come before their forks.
 * @example
 * findFixtures('tests/scenarios') // ['tests/scenarios/capital', 'tests/scenarios/capital/forks/inject-3']
 */
export function findFixtures(root: string): string[] {
  return fixtureStore().list(root, FILES.manifest)
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
  return fixtureStore().exists(join(parent, FILES.manifest)) ? parent : undefined
}
