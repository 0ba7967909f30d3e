/** The files of a fixture directory, and the YAML its manifest is written in. */
import { createRequire } from 'node:module'

type Yaml = typeof import('yaml')
let yamlModule: Yaml | undefined
/** `yaml`, loaded on the first fixture read or write (issue 14: not by every test file's setup in whole-suite mode). */
export const yaml = (): Yaml => (yamlModule ??= createRequire(import.meta.url)('yaml') as Yaml)

/** The file names of a fixture directory. */
export const FILES = {
  manifest: 'scenario.yaml',
  model: 'model.jsonl',
  tools: 'tools.jsonl',
  judge: 'judge.jsonl',
  trace: 'trace.snap',
} as const
