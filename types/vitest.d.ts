import type { FluxMatchers } from './matchers.js'

// @note FACTS: vitest 3.2–4.x declare `Matchers<T = any>`; vitest ≥ 5 declares `Matchers<R, T>` (both defaulted).
// Every declaration of an interface must have identical type parameters (TS2428, reported under
// `skipLibCheck: false`), but one with none at all fits both, as each has no required parameter: so this
// augmentation declares none, and one file serves every vitest major. Its matchers return `void` (`R`);
// the async ones return a Promise of their own.
declare module 'vitest' {
  interface Matchers extends FluxMatchers<void> {}
}
