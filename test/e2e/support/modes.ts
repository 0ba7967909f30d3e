/**
 * The mode matrix of SPEC §2, run once per runner: the same capital agent, the same cases, the real
 * runner as a child process. One recording (made in `beforeAll` against a provider that is then
 * closed) is copied into every case that needs a fixture, so "replay" always runs with the provider down.
 */
import { rmSync } from 'node:fs'
import { parse as parseYaml } from 'yaml'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startCapitalServer, type CapitalServer } from './capital-server.js'
import { assertBuilt, createProject, linkSelf, type FileState, type Project, type RunResult } from './project.js'

export interface RunnerKit {
  name: 'vitest' | 'jest'
  template: 'vitest-agent' | 'jest-agent'
  /** The test file of the capital agent. */
  file: string
  /** The line declaring the agent's options in that file (edited by the divergence cases). */
  optionsDecl: string
  run(p: Project, args: string[], env?: Record<string, string>): Promise<RunResult>
  /** Runs with the runner's snapshot update flag, each on a differently damaged trace.snap. */
  updateRuns: Array<{ args: string[]; damage: 'edited' | 'deleted' }>
}

export const TIMEOUT = 150_000
const PROMPT = 'What is the capital of the UK? Use the tool, then answer.'
const FILES = ['capital/model.jsonl', 'capital/scenario.yaml', 'capital/tools.jsonl', 'capital/trace.snap']

/** Keeps the assertion message useful: on a wrong exit code, show what the runner printed. */
export function expectExit(r: RunResult, code: 0 | 1): void {
  if (code === 0) expect(r.code, r.output).toBe(0)
  else expect(r.code, r.output).not.toBe(0)
  expect(r.code, `the runner was killed after ${r.ms} ms:\n${r.output}`).not.toBeNull()
}

export interface FetchLine {
  event: 'fetch'
  path: string
  retry?: string | null
  status?: number
  offTape?: boolean
  error?: string
}

/** The agent's HTTP attempts (one per SDK try) from its log. */
export function fetches(p: Project): FetchLine[] {
  return p.agentLog().filter((l): l is FetchLine & Record<string, unknown> => l.event === 'fetch') as FetchLine[]
}

export function modelLines(p: Project, scenario = 'capital'): Array<{ request: { body: { messages: Array<{ role: string; content: unknown }> } } }> {
  return p
    .read(`tests/scenarios/${scenario}/model.jsonl`)
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
}

const manifest = (p: Project, scenario = 'capital') =>
  parseYaml(p.read(`tests/scenarios/${scenario}/scenario.yaml`)) as { recordedAt: string; providerHosts: string[]; source?: { project?: string } }

export function defineModeCases(kit: RunnerKit): void {
  const projects: Project[] = []
  let seed: Project
  let seedRun: RunResult
  let seedFiles: Record<string, FileState>
  /** The provider the seed was recorded against, closed once it was: replays run with it down. */
  let recorded: CapitalServer
  let env: Record<string, string>

  const project = (opts: { fixture: boolean }): Project => {
    const p = createProject(kit.template)
    projects.push(p)
    if (opts.fixture) p.copyScenariosFrom(seed)
    return p
  }
  const servers: CapitalServer[] = []
  const openServer = async (): Promise<CapitalServer> => {
    const s = await startCapitalServer()
    servers.push(s)
    return s
  }

  beforeAll(async () => {
    assertBuilt()
    linkSelf()
    recorded = await startCapitalServer()
    seed = project({ fixture: false })
    seedRun = await kit.run(seed, [kit.file], { PROVIDER_URL: recorded.url })
    await recorded.close()
    seedFiles = seed.scenarioFiles()
    env = { PROVIDER_URL: recorded.url }
  }, TIMEOUT)

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()))
    if (!process.env.E2E_KEEP) for (const p of projects) p.remove()
  })

  describe(`${kit.name}: modes`, () => {
    test('records a missing scenario on a local run: exit 0, the whole fixture written, the provider hit', () => {
      expectExit(seedRun, 0)
      expect(Object.keys(seedFiles).sort()).toEqual(FILES)
      expect(recorded.requests.map((r) => `${r.kind}${r.turn ?? ''} ${r.path}`)).toEqual([
        'model1 /v1/chat/completions',
        'tool /geo/capital?country=UK',
        'model2 /v1/chat/completions',
      ])
      const lines = modelLines(seed)
      expect(lines).toHaveLength(2)
      expect(lines.map((l) => l.request.body.messages[0].content)).toEqual([PROMPT, PROMPT])
      expect(seed.read('tests/scenarios/capital/trace.snap')).toContain('final: "The capital of the UK is London."')
    })

    test.concurrent(
      'replays with the provider down: exit 0, every request served from tape, nothing rewritten',
      async () => {
        const p = project({ fixture: true })
        const before = p.scenarioFiles()
        const r = await kit.run(p, [kit.file], env)
        expectExit(r, 0)
        expect(fetches(p).map((f) => `${f.path} ${f.status}`)).toEqual(['/v1/chat/completions 200', '/geo/capital?country=UK 200', '/v1/chat/completions 200'])
        expect(p.scenarioFiles()).toEqual(before)
      },
      TIMEOUT,
    )

    const ciCases: Array<[string, string[], Record<string, string>]> = [['CI=1', [kit.file], { CI: '1' }]]
    if (kit.name === 'jest') ciCases.push(['--ci', ['--ci', kit.file], {}])
    for (const [label, args, extra] of ciCases)
      test.concurrent(
        `fails under ${label} when the fixture is missing, names the scenario and the record command, and writes nothing`,
        async () => {
          const server = await openServer()
          const p = project({ fixture: false })
          const r = await kit.run(p, args, { PROVIDER_URL: server.url, ...extra })
          expectExit(r, 1)
          expect(r.output).toContain('FLUX_NO_RECORDING')
          expect(r.output).toContain('open scenario "capital"')
          // The exact commands: this test, by file and name, and the same under FLUX_GOLDEN=update.
          const t = "-t '^answers with the capital after calling the geography tool$'"
          const cmd = kit.name === 'vitest' ? `npx vitest run capital.test.ts ${t}` : `npx jest capital.test.cjs ${t}`
          expect(r.output).toContain(`Record it where provider keys are available with \`${cmd}\``)
          expect(r.output).toContain(`record here on purpose with \`FLUX_GOLDEN=update ${cmd}\``)
          expect(p.exists('tests/scenarios')).toBe(false)
          expect(server.hits).toBe(0)
        },
        TIMEOUT,
      )

    for (const { args, damage } of kit.updateRuns)
      test.concurrent(
        `\`${args.join(' ')}\` restores ${damage === 'edited' ? 'an edited' : 'a deleted'} trace.snap from the tape, offline, leaving model.jsonl untouched`,
        async () => {
          const p = project({ fixture: true })
          const snap = 'tests/scenarios/capital/trace.snap'
          if (damage === 'edited') p.write(snap, '# fluxlab trace · capital\nstale\n')
          else rmSync(p.path(snap))
          const before = p.scenarioFiles()
          const r = await kit.run(p, args, env)
          expectExit(r, 0)
          const after = p.scenarioFiles()
          expect(p.exists(snap)).toBe(true)
          expect(p.read(snap)).toBe(seed.read(snap))
          for (const f of ['capital/model.jsonl', 'capital/tools.jsonl', 'capital/scenario.yaml']) expect(after[f], f).toEqual(before[f])
        },
        TIMEOUT,
      )

    test.concurrent(
      'FLUX_GOLDEN=update re-records against the live provider: model.jsonl rewritten, a new recordedAt',
      async () => {
        const server = await openServer()
        const p = project({ fixture: true })
        const before = p.scenarioFiles()
        const r = await kit.run(p, [kit.file], { PROVIDER_URL: server.url, FLUX_GOLDEN: 'update' })
        expectExit(r, 0)
        expect(server.requests.filter((q) => q.kind === 'model')).toHaveLength(2)
        const after = p.scenarioFiles()
        expect(after['capital/model.jsonl'].mtimeMs).toBeGreaterThan(before['capital/model.jsonl'].mtimeMs)
        expect(manifest(p).recordedAt).not.toBe(manifest(seed).recordedAt)
        expect(manifest(p).providerHosts).toEqual([new URL(server.url).host])
        expect(modelLines(p)).toHaveLength(2)
      },
      TIMEOUT,
    )

    test.concurrent(
      'FLUX_OFFLINE=1 without a fixture fails with a clear message, calls nothing and writes nothing',
      async () => {
        const server = await openServer()
        const p = project({ fixture: false })
        const r = await kit.run(p, [kit.file], { PROVIDER_URL: server.url, FLUX_OFFLINE: '1' })
        expectExit(r, 1)
        expect(r.output).toContain('FLUX_OFFLINE=1 forbids live requests')
        expect(r.output).toContain('tests/scenarios/capital')
        expect(p.exists('tests/scenarios')).toBe(false)
        expect(server.hits).toBe(0)
      },
      TIMEOUT,
    )

    test.concurrent(
      'FLUX_OFFLINE=1 with a fixture replays: exit 0',
      async () => {
        const p = project({ fixture: true })
        const before = p.scenarioFiles()
        const r = await kit.run(p, [kit.file], { ...env, FLUX_OFFLINE: '1' })
        expectExit(r, 0)
        expect(p.scenarioFiles()).toEqual(before)
      },
      TIMEOUT,
    )

    test.concurrent(
      'FLUX_GOLDEN=bogus fails with a message listing update, snapshots, judge',
      async () => {
        const p = project({ fixture: true })
        const before = p.scenarioFiles()
        const r = await kit.run(p, [kit.file], { ...env, FLUX_GOLDEN: 'bogus' })
        expectExit(r, 1)
        expect(r.output).toContain('"bogus" is not a valid value')
        expect(r.output).toContain('update, snapshots, judge')
        expect(p.scenarioFiles()).toEqual(before)
      },
      TIMEOUT,
    )
  })

  describe(`${kit.name}: divergence`, () => {
    test.concurrent(
      'a changed prompt still replays (drift is a warning): exit 0, served by position, nothing rewritten',
      async () => {
        const p = project({ fixture: true })
        p.edit(kit.file, 'then answer.', 'then answer in one sentence.')
        const before = p.scenarioFiles()
        const r = await kit.run(p, [kit.file], env)
        expectExit(r, 0)
        expect(fetches(p).map((f) => f.status)).toEqual([200, 200, 200])
        expect(p.scenarioFiles()).toEqual(before)
      },
      TIMEOUT,
    )

    test.concurrent(
      'an extra model call fails the test naming model#3 and model_index_overflow, answered once, never retried',
      async () => {
        // A live provider this time: the off-tape answer must come from fluxlab, not from a retry reaching it.
        // (The tool's host stays the recorded one: a tool call is keyed by host, a model call is not.)
        const live = await openServer()
        const p = project({ fixture: true })
        p.edit(kit.file, kit.optionsDecl, kit.optionsDecl.replace('{}', '{ extraTurn: true }'))
        const before = p.scenarioFiles()
        const r = await kit.run(p, [kit.file], { PROVIDER_URL: live.url, GEO_URL: recorded.url })
        expectExit(r, 1)
        expect(r.output).toContain('model#3')
        expect(r.output).toContain('model_index_overflow')
        const models = fetches(p).filter((f) => f.path === '/v1/chat/completions')
        expect(models.map((f) => `${f.status} retry=${f.retry}${f.offTape ? ' off-tape' : ''}`)).toEqual(['200 retry=0', '200 retry=0', '400 retry=0 off-tape'])
        expect(live.hits).toBe(0)
        expect(p.scenarioFiles()).toEqual(before)
      },
      TIMEOUT,
    )

    test.concurrent(
      'an agent that swallows the off-tape error, with no matcher, still fails at the end of the test naming the step',
      async () => {
        const p = project({ fixture: true })
        p.edit(kit.file, kit.optionsDecl, kit.optionsDecl.replace('{}', '{ extraTurn: true, swallow: true }'))
        p.edit(kit.file, '  expect(out).toReplayFaithfully() // matcher\n', '')
        const r = await kit.run(p, [kit.file], env)
        expectExit(r, 1)
        expect(p.agentLog().some((l) => l.event === 'swallowed')).toBe(true)
        expect(r.output).toContain('did not assert on it')
        expect(r.output).toMatch(/model#3: model_index_overflow/)
      },
      TIMEOUT,
    )
  })
}
