// SPEC §2 modes, end to end under jest: `jest` as a child process on a copy of projects/jest-agent (`preset: 'fluxlab'`).
import { defineModeCases } from './support/modes.js'
import { runJest } from './support/project.js'

const file = 'capital.test.cjs'

defineModeCases({
  name: 'jest',
  template: 'jest-agent',
  file,
  optionsDecl: 'const OPTIONS = {}',
  run: (p, args, env) => runJest(p, args, env),
  updateRuns: [
    { args: ['-u', file], damage: 'edited' },
    { args: ['--updateSnapshot', file], damage: 'deleted' },
  ],
})
