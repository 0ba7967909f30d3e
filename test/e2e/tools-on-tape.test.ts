/**
 * Issue 28 item 3: in-process tools on the tape in whole-suite mode, where a test has no `lab`. The suite project's
 * tool becomes an in-process function (it appends each call to a log file, so a run of its body is seen), built once
 * at module level. Wrapped with `tools()` from `fluxlab`, a replay answers it from the tape and never runs it;
 * unwrapped, it runs on replay and the run summary says so by default, with the advice that fits whole-suite mode.
 * Issue 38 item 6: the advice's first fix, a setup file that mocks the tool module through `tools()`, puts it on the
 * tape with no edit of the app or of a test.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startCapitalServer, type CapitalServer } from './support/capital-server.js'
import { assertBuilt, createProject, linkSelf, runVitest, type Project } from './support/project.js'

const TIMEOUT = 150_000
const KEY = 'sk-e2e-recording-key-not-real'
const HTTP_TOOL = `async function getCapital(country: string): Promise<string> {
  const res = await fetch(\`\${process.env.PROVIDER_URL}/geo/capital?country=\${encodeURIComponent(country)}\`)
  if (!res.ok) throw new Error(\`geo service answered \${res.status}\`)
  return ((await res.json()) as { capital: string }).capital
}`
/** The tool in-process: no HTTP, and every run of its body leaves a line in TOOL_LOG. */
const FN_TOOL = (wrap: boolean) => `import { appendFileSync } from 'node:fs'
${wrap ? "import { tools } from 'fluxlab'\n" : ''}const CAPITALS: Record<string, string> = { UK: 'London', France: 'Paris' }
const own = {
  async get_capital({ country }: { country: string }): Promise<string> {
    appendFileSync(process.env.TOOL_LOG!, \`\${country}\\n\`)
    return CAPITALS[country] ?? 'unknown'
  },
}
const { get_capital } = ${wrap ? 'tools(own)' : 'own'}
const getCapital = (country: string) => get_capital({ country })`

/**
 * The tool in a module of its own, imported by the agent, and put on the tape without editing the app or a test:
 * a setup file the vitest config names mocks the module with its exports passed through `tools()` (docs/tools.md,
 * "Without editing a test": the fix an `unwrapped_tool` warning offers first in whole-suite mode).
 */
const SETUP_TOOL = {
  agent: `import { get_capital } from './tools.js'
const getCapital = (country: string) => get_capital({ country })`,
  module: `import { appendFileSync } from 'node:fs'
const CAPITALS: Record<string, string> = { UK: 'London', France: 'Paris' }
export async function get_capital({ country }: { country: string }): Promise<string> {
  appendFileSync(process.env.TOOL_LOG!, \`\${country}\\n\`)
  return CAPITALS[country] ?? 'unknown'
}
`,
  setup: `import { tools } from 'fluxlab'
import { vi } from 'vitest'

vi.mock('../src/tools.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../src/tools.ts')>()
  return { ...original, ...tools({ get_capital: original.get_capital }) }
})
`,
}

/** Every tools.jsonl under `dir` (node_modules left out). */
const toolFiles = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name === 'tools.jsonl' && !e.parentPath.includes('node_modules'))
    .map((e) => join(e.parentPath, e.name))
    .sort()

const ranBodies = (p: Project) => (existsSync(p.path('tool.log')) ? readFileSync(p.path('tool.log'), 'utf8').split('\n').filter(Boolean) : [])

describe.each(['import', 'none', 'setup file'] as const)('whole-suite mode, an in-process tool wrapped with tools() from fluxlab (%s)', (how) => {
  const wrap = how !== 'none'
  let server: CapitalServer
  let project: Project
  let recorded: string[]

  beforeAll(async () => {
    assertBuilt()
    linkSelf()
    server = await startCapitalServer()
    project = createProject('vitest-suite')
    if (how === 'setup file') {
      project.edit('src/agent.ts', HTTP_TOOL, SETUP_TOOL.agent)
      project.write('src/tools.ts', SETUP_TOOL.module)
      project.write('test/fluxlab-tools.ts', SETUP_TOOL.setup)
      project.edit('vitest.config.ts', 'testTimeout: 20_000 }', "testTimeout: 20_000, setupFiles: ['./test/fluxlab-tools.ts'] }")
    } else project.edit('src/agent.ts', HTTP_TOOL, FN_TOOL(wrap))
    const r = await runVitest(project, [], { PROVIDER_URL: server.url, OPENAI_API_KEY: KEY, TOOL_LOG: project.path('tool.log') })
    expect(r.code, r.output).toBe(0)
    recorded = ranBodies(project)
    await server.close()
  }, TIMEOUT)
  afterAll(() => project?.remove())

  test('recording runs the tool body for each call', () => {
    expect(recorded).toEqual(['UK', 'France'])
  })

  test(
    wrap
      ? 'a replay answers it from the tape and never runs its body'
      : 'a replay runs its body, and the summary says so by default with the fix for whole-suite mode',
    async () => {
      const r = await runVitest(project, [], { PROVIDER_URL: server.url, CI: '1', FLUX_OFFLINE: '1', TOOL_LOG: project.path('tool.log') })
      expect(r.code, r.output).toBe(0)
      const replayed = ranBodies(project).slice(recorded.length)
      if (wrap) {
        expect(replayed).toEqual([])
        expect(r.output).not.toContain('unwrapped')
        // on the tape: each test's tools.jsonl holds its call as an in-process (fn) cell
        const cells = toolFiles(project.dir).flatMap((f) =>
          readFileSync(f, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as { kind: string; name: string }),
        )
        expect(cells.map((c) => `${c.kind} ${c.name}`)).toEqual(['fn get_capital', 'fn get_capital'])
      } else {
        expect(replayed).toEqual(['UK', 'France'])
        expect(r.output).toMatch(/unwrapped tools run 2/)
        // said once per tool, with what happened: the result went back to the model, so the body ran
        expect(r.output.match(/model#1 unwrapped_tool: model#1 asked for `get_capital` \(call_\w+\); model#2 sent its result back/g)).toHaveLength(2)
        expect(r.output).toContain('Without editing a test: in a setup file of your config (vitest setupFiles, jest setupFilesAfterEnv)')
        expect(r.output).toContain(`wrap it with tools({ get_capital }) or tool('get_capital', fn) from 'fluxlab' where the tools are built`)
      }
    },
    TIMEOUT,
  )
})
