// How the jest setup (`src/jest.ts`) reaches the whole-suite engine and the matcher code. It must reach them in the
// same turn (jest 29 does not await a setup file, and a matcher answers synchronously), so this is one of two files:
// - this one, the ES module build's (native ESM jest) and the source's: both are imported with the setup, eagerly;
// - `jest-load-cjs.ts`, the CommonJS build's (jest's default), which tsup.config.ts puts in this file's place: it
//   loads each on first use, so a jest test file that opens no scenario does not pay for them (issue 14).
import { matchers } from '../matchers/index.js'
import * as engine from '../scenario/per-test.js'
import { importedInterceptors } from '../sources/interceptors-eager.js'
import { provideInterceptors } from '../sources/interceptors.js'

// The interceptors this build imports, for the engine's first acquire (src/sources/interceptors.ts).
provideInterceptors(importedInterceptors)

/** The whole-suite engine (`scenario/per-test.ts`). */
export const loadEngine = (): typeof engine => engine
/** The matcher code. */
export const loadMatchers = (): typeof matchers => matchers
