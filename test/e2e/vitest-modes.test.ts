// SPEC §2 modes, end to end under vitest: `vitest run` as a child process on a copy of projects/vitest-agent.
import { defineModeCases } from './support/modes.js'
import { runVitest } from './support/project.js'

const file = 'capital.test.ts'

defineModeCases({
  name: 'vitest',
  template: 'vitest-agent',
  file,
  optionsDecl: 'const OPTIONS: AgentOptions = {}',
  run: (p, args, env) => runVitest(p, args, env),
  // @note FACTS: `vitest run -u <path>` swallows the path (`-u` takes a value), so the path goes first.
  updateRuns: [
    { args: [file, '-u'], damage: 'edited' },
    { args: [file, '--update'], damage: 'deleted' },
  ],
})
