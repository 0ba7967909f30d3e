import { createState } from './listener.js'
import { g, KEY, type InterceptionState } from './interception.js'

// @note STYLE "Side effects": one patch per process even with two copies of the library loaded.
export const st: InterceptionState = (g[KEY] as InterceptionState | undefined) ?? (g[KEY] = createState())
