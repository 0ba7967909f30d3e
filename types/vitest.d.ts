import type { FluxMatchers } from './matchers.js'

// @note FACTS: vitest 3.2–4.x declare `Matchers<T = any>`; vitest ≥ 5 declares `Matchers<R, T>`.
// The zero-type-parameter form below compiles on 3.2, 4.1 and 5.1.
declare module 'vitest' {
  interface Matchers<T = any> extends FluxMatchers<void> {}
}
