import { createState } from './listener.js'
import { KEY, type InterceptionState } from './interception.js'
import { realmState } from './process-hold.js'

// @note STYLE "Side effects": one patch per process even with two copies of the library loaded. Kept off
// `globalThis` (issue 24): the next jest test file may have to undo this file's interception (`process-hold.ts`).
export const st: InterceptionState = realmState(KEY, createState)
