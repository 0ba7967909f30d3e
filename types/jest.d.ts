import type { FluxMatchers } from './matchers.js'

declare global {
  namespace jest {
    interface Matchers<R, T = {}> extends FluxMatchers<R> {}
  }
}

declare module 'expect' {
  interface Matchers<R extends void | Promise<void>, T = unknown> extends FluxMatchers<R> {}
}
