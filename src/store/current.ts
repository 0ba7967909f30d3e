/** The store in use: the node store, unless a test set another. */
import { nodeStore } from './node.js'
import type { FixtureStore } from './store.js'

let current: FixtureStore | undefined

/**
 * The store fluxlab reads and writes fixtures through: the one {@link useFixtureStore} set, else the node store.
 * @example
 * fixtureStore().readFile('tests/scenarios/weather/scenario.yaml')
 */
export function fixtureStore(): FixtureStore {
  return (current ??= nodeStore())
}

/**
 * Read and write fixtures through `store` from now on (an in-memory store in a unit test); returns the undo.
 * @example
 * const restore = useFixtureStore(memoryStore())
 * afterEach(restore)
 */
export function useFixtureStore(store: FixtureStore): () => void {
  const before = current
  current = store
  return () => {
    current = before
  }
}
