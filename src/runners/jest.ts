import { relative } from 'node:path'
import { escapeRegExp } from '../secrets/rules.js'
import { shellQuote, type RunnerAdapter } from './adapter.js'

const VM_MODULES = '--experimental-vm-modules'
/** jest runs test files as ES modules: the flag is in this process's options (jest's workers inherit them). */
const nativeEsm = () => [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].includes(VM_MODULES)

type ExpectLike = { getState?: () => { testPath?: string; currentTestName?: string } }

/** jest: `-t` matches `currentTestName` (describe titles and the test's, joined by spaces), anchored. */
export const jestRunner: RunnerAdapter = {
  name: 'jest',
  bin: 'npx jest',
  // native ESM jest (llm-interface, in the field corpus): the command without the flag runs the test under CommonJS
  env: () => (nativeEsm() ? `NODE_OPTIONS=${VM_MODULES} ` : ''),
  select: (name) => ` -t ${shellQuote(`^${escapeRegExp(name)}$`)}`,
  configNames: /^(jest\.config\.([cm]?[jt]s|json)|package\.json)$/,
  before: (test) => (test.config ? ` -c ${shellQuote(test.config)}` : ''),
  running() {
    const state = process.env.JEST_WORKER_ID ? (globalThis as { expect?: ExpectLike }).expect?.getState?.() : undefined
    if (!state?.testPath) return undefined
    return { runner: 'jest', file: relative(process.cwd(), state.testPath), name: state.currentTestName }
  },
  setupFix: "Use the preset in jest.config (`preset: 'fluxlab'`) or add 'fluxlab/jest' to setupFilesAfterEnv",
  releaseAtOnce: true,
}
