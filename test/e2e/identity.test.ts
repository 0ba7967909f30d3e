/**
 * SPEC §2 "Identity", issue 38:
 * - item 1: two tests of one file with the same full name (jest and vitest allow it: two `it('asks for a capital')`, a
 *   `test.each` whose title holds a literal `%name`) are two scenarios, told apart by their order of declaration. Each
 *   records its own conversation, each replays its own (never the other's tape), and the run summary names each shared
 *   name once. Before this, the second test replayed the first one's tape while recording.
 * - item 5: running one test alone, with the command fluxlab prints for it, gives the verdict it has in its file. The
 *   app downloads a reference table once and keeps it for the rest of the file, so only the first test's tape has the
 *   GET; the second, run alone offline, is answered from the first's fixture, and the summary says so.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { rmSync } from 'node:fs'
import { parse as parseYaml } from 'yaml'
import { startCapitalServer } from './support/capital-server.js'
import { testCommand } from '../../src/runners/command.js'
import { assertBuilt, createProject, linkSelf, runJest, runVitest, type Project } from './support/project.js'

const TIMEOUT = 150_000
const KEYS = { OPENAI_API_KEY: 'sk-e2e-recording-key-not-real' }

// The same shapes in each runner's own dialect: two plain namesakes, and a `test.each` over object rows whose title
// interpolates nothing.
const VITEST_FILE = `import { describe, expect, it, test } from 'vitest'
import { ask } from '../src/agent'

describe.skipIf(!process.env.OPENAI_API_KEY)('raw', () => {
  it('asks for a capital', async () => {
    expect(await ask('What is the capital of Japan? Use the tool, then answer.')).toContain('Tokyo')
  })

  it('asks for a capital', async () => {
    expect(await ask('What is the capital of Italy? Use the tool, then answer.')).toContain('Rome')
  })

  test.each([
    { country: 'Spain', capital: 'Madrid' },
    { country: 'Germany', capital: 'Berlin' },
  ])('asks for the %name capital', async ({ country, capital }) => {
    expect(await ask(\`What is the capital of \${country}? Use the tool, then answer.\`)).toContain(capital)
  })
})
`
const JEST_FILE = `const { ask } = require('../src/agent.cjs')

const describeIfKey = process.env.OPENAI_API_KEY ? describe : describe.skip

describeIfKey('raw', () => {
  it('asks for a capital', async () => {
    expect(await ask('What is the capital of Japan? Use the tool, then answer.')).toContain('Tokyo')
  })

  it('asks for a capital', async () => {
    expect(await ask('What is the capital of Italy? Use the tool, then answer.')).toContain('Rome')
  })

  test.each([
    { country: 'Spain', capital: 'Madrid' },
    { country: 'Germany', capital: 'Berlin' },
  ])('asks for the %name capital', async ({ country, capital }) => {
    expect(await ask(\`What is the capital of \${country}? Use the tool, then answer.\`)).toContain(capital)
  })
})
`

// The app keeps a download for the rest of the file: only the first test that needs it sends the GET.
const CACHED_VITEST = `import { describe, expect, it } from 'vitest'
import { ask } from '../src/agent'

let table: Promise<{ capital: string }> | undefined
const reference = () => (table ??= fetch(\`\${process.env.PROVIDER_URL}/geo/capital?country=Spain\`).then((r) => r.json()))

describe.skipIf(!process.env.OPENAI_API_KEY)('cached', () => {
  it('answers Japan, the table at hand', async () => {
    expect((await reference()).capital).toBe('Madrid')
    expect(await ask('What is the capital of Japan? Use the tool, then answer.')).toContain('Tokyo')
  })

  it('answers Italy, the table at hand', async () => {
    expect((await reference()).capital).toBe('Madrid')
    expect(await ask('What is the capital of Italy? Use the tool, then answer.')).toContain('Rome')
  })
})
`
const CACHED_JEST = `const { ask } = require('../src/agent.cjs')

let table
const reference = () => (table = table || fetch(\`\${process.env.PROVIDER_URL}/geo/capital?country=Spain\`).then((r) => r.json()))

const describeIfKey = process.env.OPENAI_API_KEY ? describe : describe.skip

describeIfKey('cached', () => {
  it('answers Japan, the table at hand', async () => {
    expect((await reference()).capital).toBe('Madrid')
    expect(await ask('What is the capital of Japan? Use the tool, then answer.')).toContain('Tokyo')
  })

  it('answers Italy, the table at hand', async () => {
    expect((await reference()).capital).toBe('Madrid')
    expect(await ask('What is the capital of Italy? Use the tool, then answer.')).toContain('Rome')
  })
})
`

const KITS = [
  {
    name: 'vitest',
    template: 'vitest-suite',
    file: 'test/raw.test.ts',
    text: VITEST_FILE,
    cached: { file: 'test/cached.test.ts', text: CACHED_VITEST },
    sep: ' > ',
    run: (p: Project, args: string[], env: Record<string, string>) => runVitest(p, args, env),
  },
  {
    name: 'jest',
    template: 'jest-suite',
    file: 'test/raw.test.cjs',
    text: JEST_FILE,
    cached: { file: 'test/cached.test.cjs', text: CACHED_JEST },
    sep: ' ',
    run: (p: Project, args: string[], env: Record<string, string>) => runJest(p, args, env),
  },
] as const

const summaryOf = (output: string) => output.slice(output.indexOf(' fluxlab  '))

interface Manifest {
  source: { file: string; name: string; nth?: number }
}

describe.concurrent.each(KITS)('$name: one test run alone, a download its file keeps across tests', (kit) => {
  let project: Project
  let url: string

  beforeAll(async () => {
    assertBuilt()
    linkSelf()
    const server = await startCapitalServer()
    url = server.url
    project = createProject(kit.template)
    project.write(kit.cached.file, kit.cached.text)
    const r = await kit.run(project, [kit.cached.file], { PROVIDER_URL: url, ...KEYS })
    expect(r.code, r.output).toBe(0)
    expect(summaryOf(r.output)).toMatch(/2 scenarios: 0 replayed, 2 recorded · tests 2 passed/)
    await server.close()
  }, TIMEOUT)
  afterAll(() => {
    if (!process.env.E2E_KEEP) project?.remove()
  })

  test(
    "the rerun command fluxlab prints for the second test passes offline: the first test's fixture answers its GET",
    async ({ expect }) => {
      // The whole file replays as it recorded: the second test's tape has no GET, and needs none.
      const whole = await kit.run(project, [kit.cached.file], { PROVIDER_URL: url, CI: '1', FLUX_OFFLINE: '1' })
      expect(whole.code, whole.output).toBe(0)
      expect(summaryOf(whole.output)).not.toContain('shared reads')
      const command = testCommand({ runner: kit.name, file: kit.cached.file, name: `cached${kit.sep}answers Italy, the table at hand` })
      const pattern = /-t '(.+)'$/.exec(command)?.[1]
      expect(pattern, command).toBeDefined()
      const alone = await kit.run(project, [kit.cached.file, '-t', pattern!], { PROVIDER_URL: url, CI: '1', FLUX_OFFLINE: '1' })
      expect(alone.code, alone.output).toBe(0)
      const summary = summaryOf(alone.output)
      expect(summary).toMatch(/1 scenario: 1 replayed, 0 recorded · tests 1 passed, 0 failed, 1 skipped · hermetic 1\/1 · live model calls 0/)
      expect(summary).toContain('shared reads 1')
      expect(summary).toMatch(
        /1 read answered from another test's fixture of the same file.*\n.*tool#1 GET 127\.0\.0\.1:\d+\/geo\/capital ← test-cached-test--cached-answers-japan/,
      )
    },
    TIMEOUT,
  )
})

describe.concurrent.each(KITS)('$name: tests of one file that share a full name', (kit) => {
  let project: Project
  let url: string
  let recording: string

  beforeAll(async () => {
    assertBuilt()
    linkSelf()
    const server = await startCapitalServer()
    url = server.url
    project = createProject(kit.template)
    project.write(kit.file, kit.text)
    const r = await kit.run(project, [kit.file], { PROVIDER_URL: url, ...KEYS })
    recording = r.output
    expect(r.code, r.output).toBe(0)
    await server.close()
  }, TIMEOUT)
  afterAll(() => {
    if (!process.env.E2E_KEEP) project?.remove()
  })

  test('each records its own fixture, holding only its own conversation, its manifest naming its place', ({ expect }) => {
    expect(summaryOf(recording)).toMatch(/4 scenarios: 0 replayed, 4 recorded · tests 4 passed, 0 failed, 0 skipped/)
    const byCountry = new Map<string, Manifest['source']>()
    // (`.files/` holds what each test file read of key variables while recording: no fixture)
    for (const dir of project.fixtureDirs()) {
      const model = project.read(`tests/scenarios/${dir}/model.jsonl`)
      const countries = ['Japan', 'Italy', 'Spain', 'Germany'].filter((c) => model.includes(c))
      expect(countries, dir).toHaveLength(1)
      byCountry.set(countries[0], (parseYaml(project.read(`tests/scenarios/${dir}/scenario.yaml`)) as Manifest).source)
    }
    expect(Object.fromEntries(byCountry)).toEqual({
      Japan: { file: kit.file, name: `raw${kit.sep}asks for a capital`, runner: kit.name },
      Italy: { file: kit.file, name: `raw${kit.sep}asks for a capital`, nth: 2, runner: kit.name },
      Spain: { file: kit.file, name: `raw${kit.sep}asks for the %name capital`, runner: kit.name },
      Germany: { file: kit.file, name: `raw${kit.sep}asks for the %name capital`, nth: 2, runner: kit.name },
    })
  })

  test(
    'each replays its own tape offline with every key unset, and the summary names each shared name once',
    async ({ expect }) => {
      const r = await kit.run(project, [kit.file], { PROVIDER_URL: url, CI: '1', FLUX_OFFLINE: '1' })
      expect(r.code, r.output).toBe(0)
      const summary = summaryOf(r.output)
      expect(summary).toMatch(/4 scenarios: 4 replayed, 0 recorded · tests 4 passed, 0 failed, 0 skipped · hermetic 4\/4 · live model calls 0/)
      expect(summary).toContain('drift warnings 0')
      expect(summary).toContain(
        `· 2 tests of ${kit.file} are named "raw${kit.sep}asks for a capital": each has its own scenario, told apart by order of declaration`,
      )
      expect(summary).toContain(`· 2 tests of ${kit.file} are named "raw${kit.sep}asks for the %name capital"`)
      expect(summary.match(/are named/g)).toHaveLength(2)
    },
    TIMEOUT,
  )

  test(
    'a test never replays another test of its name: the second, its fixture gone, is refused under CI',
    async ({ expect }) => {
      const p = createProject(kit.template)
      try {
        p.write(kit.file, kit.text)
        p.copyScenariosFrom(project)
        for (const dir of p.fixtureDirs())
          if (p.read(`tests/scenarios/${dir}/model.jsonl`).includes('Italy')) rmSync(p.path(`tests/scenarios/${dir}`), { recursive: true })
        const r = await kit.run(p, [kit.file], { PROVIDER_URL: url, CI: '1' })
        expect(summaryOf(r.output), r.output).toMatch(/3 scenarios: 3 replayed, 0 recorded · tests 3 passed, 1 failed \(1 FLUX_NO_RECORDING\), 0 skipped/)
      } finally {
        if (!process.env.E2E_KEEP) p.remove()
      }
    },
    TIMEOUT,
  )
})
