import type { FluxOptions } from './options.js'
import { state } from './state.js'

/**
 * Set project-wide options without a runner plugin (the vitest plugin and jest
 * preset call this for you). Later calls merge over earlier ones.
 * @example
 * configure({ dir: 'test/recordings', ignore: ['metadata.session_id'] })
 */
export function configure(options: FluxOptions): void {
  Object.assign(state.options, options)
}
