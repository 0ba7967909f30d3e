// vitest only: the plugin next to the user's setup, and one scenario per test under test.concurrent,
// several workers and several projects (SPEC §1 "Test isolation"; FACTS "Runners").
import { parse as parseYaml } from 'yaml'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { CAPITALS, startCapitalServer, type CapitalServer } from './support/capital-server.js'
import { TIMEOUT, expectExit, fetches, modelLines } from './support/modes.js'
import { assertBuilt, createProject, linkSelf, runVitest, type Project } from './support/project.js'

const projects: Project[] = []
const servers: CapitalServer[] = []

function project(): Project {
  const p = createProject('vitest-agent')
  projects.push(p)
  return p
}
async function server(opts: Parameters<typeof startCapitalServer>[0] = {}): Promise<CapitalServer> {
  const s = await startCapitalServer(opts)
  servers.push(s)
  return s
}

beforeAll(() => {
  assertBuilt()
  linkSelf()
})
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()))
  if (!process.env.E2E_KEEP) for (const p of projects) p.remove()
})

/** A fixture holds this country's traffic and nothing else. */
function expectWholeFixture(p: Project, scenario: string, country: string): void {
  expect(
    Object.keys(p.scenarioFiles())
      .filter((f) => f.startsWith(`${scenario}/`))
      .sort(),
  ).toEqual(['model.jsonl', 'scenario.yaml', 'tools.jsonl', 'trace.snap'].map((f) => `${scenario}/${f}`))
  const prompts = modelLines(p, scenario).map((l) => String(l.request.body.messages[0].content))
  expect(prompts).toEqual([0, 1].map(() => `What is the capital of ${country}? Use the tool, then answer.`))
  const tools = p.read(`tests/scenarios/${scenario}/tools.jsonl`).split('\n').filter(Boolean)
  expect(tools).toHaveLength(1)
  expect(tools[0]).toContain(`"country":"${country}"`)
  expect(p.read(`tests/scenarios/${scenario}/trace.snap`)).toContain(`final: "The capital of the ${country} is ${CAPITALS[country]}."`)
}

describe('vitest plugin', () => {
  test.concurrent(
    "keeps the project's own setupFiles running next to the plugin's setup",
    async () => {
      const s = await server()
      const p = project()
      const r = await runVitest(p, ['capital.test.ts'], { PROVIDER_URL: s.url })
      expectExit(r, 0)
      expect(p.agentLog().find((l) => l.event === 'test')).toEqual({ event: 'test', userSetupRan: true })
      // the plugin's setup ran too: the scenario recorded, and the matcher it registers passed
      expect(p.exists('tests/scenarios/capital/model.jsonl')).toBe(true)
    },
    TIMEOUT,
  )

  test.concurrent(
    'test.concurrent tests record their own scenarios at the same time into separate, whole fixtures, then replay them together offline',
    async () => {
      const s = await server({ rendezvous: 3 })
      const p = project()
      const rec = await runVitest(p, ['concurrent.test.ts'], { PROVIDER_URL: s.url })
      expectExit(rec, 0)
      expect(s.rendezvousMet).toBe(true)
      for (const country of ['UK', 'France', 'Japan']) expectWholeFixture(p, `capital-${country.toLowerCase()}`, country)
      expect(s.requests.filter((q) => q.kind === 'model')).toHaveLength(6)

      await s.close()
      const before = p.scenarioFiles()
      const replay = await runVitest(p, ['concurrent.test.ts'], { PROVIDER_URL: s.url })
      expectExit(replay, 0)
      expect(
        fetches(p)
          .slice(9)
          .map((f) => f.status),
      ).toEqual(Array(9).fill(200))
      expect(p.scenarioFiles()).toEqual(before)
    },
    TIMEOUT,
  )

  test.concurrent(
    'two workers recording at once write separate, whole fixtures, then replay offline',
    async () => {
      const s = await server({ rendezvous: 2 })
      const p = project()
      const files = ['worker-france.test.ts', 'worker-japan.test.ts']
      const rec = await runVitest(p, [...files, '--maxWorkers=2', '--fileParallelism'], { PROVIDER_URL: s.url })
      expectExit(rec, 0)
      expect(s.rendezvousMet).toBe(true)
      expectWholeFixture(p, 'capital-france', 'France')
      expectWholeFixture(p, 'capital-japan', 'Japan')

      await s.close()
      const before = p.scenarioFiles()
      const replay = await runVitest(p, [...files, '--maxWorkers=2', '--fileParallelism'], { PROVIDER_URL: s.url })
      expectExit(replay, 0)
      expect(p.scenarioFiles()).toEqual(before)
    },
    TIMEOUT,
  )

  test.concurrent(
    'a test file in two projects records one fixture per project, under the project name',
    async () => {
      const s = await server()
      const p = project()
      const rec = await runVitest(p, ['--config', 'vitest.projects.config.ts', '--maxWorkers=2'], { PROVIDER_URL: s.url })
      expectExit(rec, 0)
      expect(Object.keys(p.scenarioFiles()).sort()).toEqual(
        ['alpha', 'beta'].flatMap((project) => ['model.jsonl', 'scenario.yaml', 'tools.jsonl', 'trace.snap'].map((f) => `${project}/capital/${f}`)),
      )
      for (const name of ['alpha', 'beta']) {
        const manifest = parseYaml(p.read(`tests/scenarios/${name}/capital/scenario.yaml`)) as { source: { project?: string; file: string } }
        expect(manifest.source).toMatchObject({ project: name, file: 'capital.test.ts' })
        expect(modelLines(p, `${name}/capital`)).toHaveLength(2)
      }
      expect(s.requests.filter((q) => q.kind === 'model')).toHaveLength(4)

      await s.close()
      const before = p.scenarioFiles()
      const replay = await runVitest(p, ['--config', 'vitest.projects.config.ts', '--maxWorkers=2'], { PROVIDER_URL: s.url })
      expectExit(replay, 0)
      expect(p.scenarioFiles()).toEqual(before)
    },
    TIMEOUT,
  )
})
