// `fluxlab test`: every fixture verified offline, as a child process on fixtures made by the real engine,
// and on hand-broken copies, one per error path.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { assertBuilt, cleanup, copyFixture, editJsonl, EXAMPLE, fluxlab, read, recordDragons, REPO, replaceIn, retrace, tempDir } from './support.js'

/** A secret-looking value built at run time (so no scanner flags this file). */
const SECRET = ['sk', 'proj', 'Q'.repeat(12) + 'w7'.repeat(12)].join('-')

let root: string
let cwd: string
let dragons: string

beforeAll(async () => {
  assertBuilt()
  cwd = tempDir()
  root = join(cwd, 'tests/scenarios')
  mkdirSync(root, { recursive: true })
  copyFixture(EXAMPLE, root, 'capital-agent')
  dragons = await recordDragons(root)
  // A fork beside its parent (`<scenario>/forks/<id>/`): the second tool answered differently.
  const staging = copyFixture(dragons, tempDir(), 'alt')
  editJsonl(join(staging, 'tools.jsonl'), 2, (c) => (c.output = false))
  replaceIn(
    join(staging, 'scenario.yaml'),
    /^name: dragons$/m,
    'name: alt\nfork:\n  parent: dragons\n  parentRecordedAt: "2026-01-01T00:00:00.000Z"\n  change: substitute 2 false',
  )
  retrace(staging)
  copyFixture(staging, dragons, 'forks/alt')
})
afterAll(cleanup)

describe.concurrent('fluxlab test on good fixtures', () => {
  test('verifies every fixture and fork offline: exit 0, one line each', async () => {
    const r = await fluxlab(['test'], { cwd })
    expect(r.code, r.output).toBe(0)
    expect(r.stdout).toContain('✓ capital-agent  tests/scenarios/capital-agent · 2 model · 1 tool')
    expect(r.stdout).toContain('✓ dragons  tests/scenarios/dragons · 3 model · 2 tool')
    expect(r.stdout).toContain('✓ alt (fork of tests/scenarios/dragons)')
    expect(r.stdout).toContain('✓ 3 fixtures verified offline (no network, no key).')
  })

  test('--json prints the documented fluxlab.test/v1 document', async () => {
    const r = await fluxlab(['test', '--json'], { cwd })
    expect(r.code, r.output).toBe(0)
    const doc = JSON.parse(r.stdout)
    expect(Object.keys(doc).sort()).toEqual(['fixtures', 'fluxlabVersion', 'ok', 'root', 'schema', 'summary'])
    expect(doc).toMatchObject({
      schema: 'fluxlab.test/v1',
      root: 'tests/scenarios',
      ok: true,
      summary: { fixtures: 3, passed: 3, failed: 0, problems: 0, tracesWritten: 0 },
    })
    expect(doc.fixtures).toEqual([
      { name: 'capital-agent', dir: 'tests/scenarios/capital-agent', ok: true, modelCalls: 2, toolCalls: 1, trace: 'matched', problems: [] },
      { name: 'dragons', dir: 'tests/scenarios/dragons', ok: true, modelCalls: 3, toolCalls: 2, trace: 'matched', problems: [] },
      {
        name: 'alt',
        dir: 'tests/scenarios/dragons/forks/alt',
        forkOf: 'tests/scenarios/dragons',
        ok: true,
        modelCalls: 3,
        toolCalls: 2,
        trace: 'matched',
        problems: [],
      },
    ])
  })

  test('the committed examples verify, forks written by the what-if engine included', async () => {
    const r = await fluxlab(['test', '--dir', 'examples/scenarios', '--json'], { cwd: REPO })
    expect(r.code, r.output).toBe(0)
    const doc = JSON.parse(r.stdout)
    expect(doc.fixtures.map((f: { dir: string }) => f.dir)).toContain('examples/scenarios/capital-agent')
    expect(doc.fixtures.every((f: { ok: boolean; trace: string }) => f.ok && f.trace === 'matched')).toBe(true)
  })

  test('a name verifies that scenario and its forks only', async () => {
    const r = await fluxlab(['test', 'dragons', '--json'], { cwd })
    expect(r.code, r.output).toBe(0)
    expect(JSON.parse(r.stdout).fixtures.map((f: { dir: string }) => f.dir)).toEqual(['tests/scenarios/dragons', 'tests/scenarios/dragons/forks/alt'])
  })

  test('--dir and the config file choose the fixture root', async () => {
    const other = tempDir()
    copyFixture(EXAMPLE, join(other, 'recordings'), 'capital-agent')
    expect((await fluxlab(['test', '--dir', 'recordings'], { cwd: other })).code).toBe(0)
    writeFileSync(join(other, 'fluxlab.config.json'), JSON.stringify({ dir: 'recordings' }))
    const r = await fluxlab(['test'], { cwd: other })
    expect(r.code, r.output).toBe(0)
    expect(r.stdout).toContain('recordings/capital-agent')
  })
})

describe.concurrent('fluxlab test finds nothing', () => {
  test('no fixtures is an error (exit 3), not a green gate', async () => {
    const empty = tempDir()
    const r = await fluxlab(['test'], { cwd: empty })
    expect(r.code).toBe(3)
    expect(r.stderr).toContain('[fluxlab] Failed to verify the fixtures under tests/scenarios: no fixtures were found')
    expect(r.stderr).toContain('pass --dir <fixture root>')
    const j = await fluxlab(['test', '--json'], { cwd: empty })
    expect(j.code).toBe(3)
    expect(JSON.parse(j.stdout)).toMatchObject({ schema: 'fluxlab.test/v1', ok: false, fixtures: [], error: { exitCode: 3 } })
  })

  test('an unknown scenario is an error that lists the known ones', async () => {
    const r = await fluxlab(['test', 'dragon'], { cwd })
    expect(r.code).toBe(3)
    expect(r.stderr).toContain('Failed to find scenario "dragon": there is no fixture')
    expect(r.stderr).toContain('  • dragons')
    expect(r.stderr).toContain('  • capital-agent')
  })
})

describe.concurrent('fluxlab test on hand-broken fixtures', () => {
  let broken: string
  let brokenCwd: string
  const fx = (name: string) => join(broken, name)

  beforeAll(() => {
    brokenCwd = tempDir()
    broken = join(brokenCwd, 'tests/scenarios')
    const copy = (name: string, from = dragons) => copyFixture(from, broken, name)
    copy('good')
    writeFileSync(join(copy('bad-json'), 'model.jsonl'), read(join(dragons, 'model.jsonl')).replace(/\n[^\n]+\n/, '\n{"seq": 2, oops\n'))
    editJsonl(join(copy('bad-cell'), 'model.jsonl'), 1, (c) => delete c.key)
    replaceIn(join(copy('bad-yaml'), 'scenario.yaml'), 'name: dragons', 'name: [dragons')
    replaceIn(join(copy('future-format'), 'scenario.yaml'), 'formatVersion: 1', 'formatVersion: 99')
    editJsonl(join(copy('request-edited'), 'model.jsonl'), 2, (c) => (c.request.body.messages[0].content = 'Can the country of Muffin have dragons?'))
    editJsonl(join(copy('args-edited'), 'tools.jsonl'), 2, (c) => (c.args = { country: 'Muffin' }))
    editJsonl(join(copy('secret'), 'tools.jsonl'), 1, (c) => (c.output = { population: 123124, note: `key ${SECRET}` }))
    editJsonl(join(copy('truncated'), 'model.jsonl'), 3, (c) => Object.assign(c, { truncated: true, originalBytes: 3_000_000 }))
    retrace(fx('truncated'))
    replaceIn(join(copy('redaction'), 'scenario.yaml'), /^redaction: .*$/m, 'redaction: v1:00000000')
    replaceIn(join(copy('trace-edited'), 'trace.snap'), '· in ', '· in 1')
    rmSync(join(copy('trace-missing'), 'trace.snap'))
    writeFileSync(join(copy('judge-bad'), 'judge.jsonl'), '{"key":"sha256:1","verdict":"PASS"}\n[1, 2\n')
  })

  test('every error path has its code, file and line in --json, exit 1', async () => {
    const r = await fluxlab(['test', '--json'], { cwd: brokenCwd })
    expect(r.code, r.output).toBe(1)
    const doc = JSON.parse(r.stdout)
    expect(doc.ok).toBe(false)
    const by = Object.fromEntries(doc.fixtures.map((f: { name: string; dir: string }) => [f.dir.split('/').pop(), f]))
    const problems = (name: string) => by[name].problems.map((p: Record<string, unknown>) => ({ ...p, message: undefined, diff: undefined }))
    const where = 'tests/scenarios'
    expect(by.good).toMatchObject({ ok: true, problems: [] })
    expect(problems('bad-json')).toEqual([{ code: 'fixture_invalid', file: `${where}/bad-json/model.jsonl`, line: 2 }])
    expect(by['bad-json'].problems[0].message).toMatch(/^not valid JSON/)
    expect(problems('bad-cell')).toEqual([{ code: 'fixture_invalid', file: `${where}/bad-cell/model.jsonl`, line: 1, field: 'key' }])
    expect(by['bad-cell'].problems[0].message).toContain('expected "key" (sha256:<64 hex>), found nothing: the field is missing')
    expect(problems('bad-yaml')).toEqual([{ code: 'fixture_invalid', file: `${where}/bad-yaml/scenario.yaml`, line: 4 }])
    expect(problems('future-format')).toEqual([{ code: 'format_version', file: `${where}/future-format/scenario.yaml` }])
    expect(by['future-format'].problems[0].message).toContain('npm i -D fluxlab@latest')
    expect(problems('request-edited')).toEqual([{ code: 'key_mismatch', file: `${where}/request-edited/model.jsonl`, line: 2, step: 'model#2' }])
    expect(problems('secret')).toEqual([
      { code: 'credential_found', file: `${where}/secret/tools.jsonl`, line: 1 },
      { code: 'trace_mismatch', file: `${where}/secret/trace.snap`, line: 4 },
    ])
    expect(by.secret.problems[0].message).toContain('rule openai-key at output.note')
    expect(r.output).not.toContain(SECRET)
    expect(problems('args-edited')).toEqual([
      { code: 'key_mismatch', file: `${where}/args-edited/tools.jsonl`, line: 2, step: 'tool#2 can_have_dragons' },
      { code: 'trace_mismatch', file: `${where}/args-edited/trace.snap`, line: 7 },
    ])
    expect(problems('truncated')).toEqual([{ code: 'truncated_cell', file: `${where}/truncated/model.jsonl`, line: 3, step: 'model#3' }])
    expect(by.truncated.problems[0].message).toContain('FLUX_CASSETTE_MAX_BYTES=6000000 FLUX_GOLDEN=update')
    expect(problems('redaction')).toEqual([{ code: 'redaction_mismatch', file: `${where}/redaction/scenario.yaml`, line: expect.any(Number) }])
    expect(problems('trace-edited')).toEqual([{ code: 'trace_mismatch', file: `${where}/trace-edited/trace.snap`, line: 2 }])
    expect(by['trace-edited'].problems[0].diff).toMatch(
      /^- trace\.snap\n\+ rebuilt from the cells\n\n@@ -1,4 \+1,4 @@\n  # fluxlab trace · dragons\n- 1 model#1 openai-chat .* · in 1/,
    )
    expect(problems('trace-missing')).toEqual([{ code: 'trace_missing', file: `${where}/trace-missing/trace.snap` }])
    expect(problems('judge-bad')).toEqual([{ code: 'fixture_invalid', file: `${where}/judge-bad/judge.jsonl`, line: 2 }])
    expect(doc.summary).toEqual({ fixtures: 13, passed: 1, failed: 12, problems: 14, tracesWritten: 0 })
  })

  test('the terminal report names file:line, the step and the fix, and ends with a STYLE error', async () => {
    const r = await fluxlab(['test'], { cwd: brokenCwd })
    expect(r.code).toBe(1)
    expect(r.stdout).toContain('✗ dragons  tests/scenarios/request-edited · 3 model · 2 tool')
    expect(r.stdout).toMatch(
      / {4}• tests\/scenarios\/request-edited\/model\.jsonl:2 model#2 key_mismatch: its key sha256:\w+… is not the hash of its stored canonical request/,
    )
    expect(r.stdout).toContain('Restore the line from version control, or re-record it with FLUX_GOLDEN=update')
    expect(r.stdout).toContain('tests/scenarios/bad-json/model.jsonl:2 fixture_invalid: not valid JSON')
    expect(r.stdout).toMatch(/ {6}@@ -1,4 \+1,4 @@/)
    expect(r.stderr).toContain(
      '[fluxlab] Failed to verify 12 of 13 fixtures: 14 problems, each listed above with its file:line and fix. Fix them as each says, then run `npx fluxlab test` again.',
    )
    expect(r.output).not.toContain(SECRET)
  })

  test('FLUX_GOLDEN=snapshots rewrites trace.snap from the cells offline, and the next run passes', async () => {
    const here = tempDir()
    const scen = join(here, 'tests/scenarios')
    copyFixture(fx('trace-edited'), scen, 'edited')
    copyFixture(fx('trace-missing'), scen, 'missing')
    const r = await fluxlab(['test', '--json'], { cwd: here, env: { FLUX_GOLDEN: 'snapshots' } })
    expect(r.code, r.output).toBe(0)
    expect(JSON.parse(r.stdout).fixtures.map((f: { trace: string }) => f.trace)).toEqual(['updated', 'added'])
    expect(read(join(scen, 'edited/trace.snap'))).toBe(read(join(dragons, 'trace.snap')))
    expect(existsSync(join(scen, 'missing/trace.snap'))).toBe(true)
    expect((await fluxlab(['test'], { cwd: here })).code).toBe(0)
  })

  test('an invalid FLUX_GOLDEN is an error listing the valid values', async () => {
    const r = await fluxlab(['test'], { cwd, env: { FLUX_GOLDEN: 'bogus' } })
    expect(r.code).toBe(3)
    expect(r.stderr).toContain('"bogus" is not a valid value')
    expect(r.stderr).toContain('update, snapshots, judge')
  })
})

describe.concurrent('fluxlab test on fixtures replay would reject (issue 13)', () => {
  let cwdBad: string
  beforeAll(() => {
    cwdBad = tempDir()
    const into = join(cwdBad, 'tests/scenarios')
    const copy = (name: string) => join(copyFixture(EXAMPLE, into, name), 'model.jsonl')
    copy('a-good')
    editJsonl(copy('chunk-shape'), 1, (c) => (c.response.chunks = [{ t: 'x' }]))
    editJsonl(copy('usage-null'), 2, (c) => (c.usage = null))
    editJsonl(copy('no-tool-calls'), 1, (c) => delete c.toolCalls)
    editJsonl(copy('bad-b64'), 2, (c) => (c.response.chunks[0] = { t: c.response.chunks[0].t, b64: 'QUJD!' }))
    editJsonl(copy('text-edited'), 2, (c) => (c.text = 'Paris'))
    copy('z-good')
  })

  test('each is fixture_invalid with file:line, field and the re-record command; every other fixture is still verified; exit 1, not 3', async () => {
    const r = await fluxlab(['test', '--json'], { cwd: cwdBad })
    expect(r.code, r.output).toBe(1)
    const doc = JSON.parse(r.stdout)
    const by = Object.fromEntries(doc.fixtures.map((f: { dir: string }) => [f.dir.split('/').pop(), f]))
    const where = (name: string) => `tests/scenarios/${name}/model.jsonl`
    const first = (name: string) => ({ ...by[name].problems[0], message: undefined })
    expect(by['a-good'].ok).toBe(true)
    expect(by['z-good'].ok).toBe(true)
    expect(first('chunk-shape')).toEqual({ code: 'fixture_invalid', file: where('chunk-shape'), line: 1, field: 'response.chunks[0].t' })
    expect(first('usage-null')).toEqual({ code: 'fixture_invalid', file: where('usage-null'), line: 2, field: 'usage' })
    expect(first('no-tool-calls')).toEqual({ code: 'fixture_invalid', file: where('no-tool-calls'), line: 1, field: 'toolCalls' })
    expect(first('bad-b64')).toEqual({ code: 'fixture_invalid', file: where('bad-b64'), line: 2, field: 'response.chunks[0].b64' })
    expect(first('text-edited')).toEqual({ code: 'fixture_invalid', file: where('text-edited'), line: 2, field: 'text' })
    expect(by['chunk-shape'].problems[0].message).toMatch(
      /^expected "t", milliseconds since the request \(a number ≥ 0\) at response\.chunks\[0\]\.t, found "x"\. Fix the line by hand or re-record the scenario with `FLUX_GOLDEN=update npx vitest run capital-agent\/capital\.test\.ts/,
    )
    expect(by['bad-b64'].problems[0].message).toContain('expected "b64" to be canonical base64')
    expect(by['text-edited'].problems[0].message).toContain('its stored "text" is "Paris", but its response.chunks say "The capital of the UK is London."')
    expect(doc.summary).toMatchObject({ fixtures: 7, passed: 2, failed: 5 })
  })
})

describe('fluxlab test on a hand-edited cell (issue 28: every served byte is bound)', () => {
  let here: string
  let tools: string
  beforeAll(async () => {
    here = tempDir()
    const scen = join(here, 'tests/scenarios')
    // the committed example has no digests (recorded before them): --accept writes them, and a run without --accept checks them
    tools = join(copyFixture(EXAMPLE, scen, 'capital-agent'), 'tools.jsonl')
    const r = await fluxlab(['test', '--accept', 'capital-agent'], { cwd: here })
    expect(r.code, r.output).toBe(0)
    expect(r.stdout).toContain('nothing to accept in capital-agent')
    expect(read(tools)).toMatch(/"digest":"sha256:[0-9a-f]{64}"/)
  })

  test('an http tool body edited by hand is digest_mismatch with file and line, exit 1; --accept accepts it and the next run passes', async () => {
    replaceIn(tools, '{\\"capital\\":\\"London\\"}', '{\\"capital\\":\\"Paris\\"}')
    const r = await fluxlab(['test', '--json'], { cwd: here })
    expect(r.code, r.output).toBe(1)
    const [problem] = JSON.parse(r.stdout).fixtures[0].problems
    expect(problem).toMatchObject({ code: 'digest_mismatch', file: 'tests/scenarios/capital-agent/tools.jsonl', line: 1, field: 'digest' })
    expect(problem.message).toContain('npx fluxlab test --accept capital-agent')
    const text = await fluxlab(['test'], { cwd: here })
    expect(text.code, text.output).toBe(1)
    expect(text.stdout).toContain('tests/scenarios/capital-agent/tools.jsonl:1 digest_mismatch: the line was changed since it was recorded')

    const accepted = await fluxlab(['test', '--accept', 'capital-agent'], { cwd: here })
    expect(accepted.code, accepted.output).toBe(0)
    expect(accepted.stdout).toContain('accepted the edits of 1 cell of capital-agent (digests rewritten): tests/scenarios/capital-agent/tools.jsonl:1')
    expect(read(tools)).toContain('{\\"capital\\":\\"Paris\\"}')
    expect((await fluxlab(['test'], { cwd: here })).code).toBe(0)
  })

  test('an http tool response emptied by hand ("chunks":[]) is digest_mismatch too', async () => {
    const other = tempDir()
    const copy = join(copyFixture(join(here, 'tests/scenarios/capital-agent'), join(other, 'tests/scenarios'), 'emptied'), 'tools.jsonl')
    writeFileSync(copy, read(copy).replace(/"chunks":\[[^\]]*\]/, '"chunks":[]'))
    const r = await fluxlab(['test', '--json'], { cwd: other })
    expect(r.code, r.output).toBe(1)
    expect(JSON.parse(r.stdout).fixtures[0].problems).toMatchObject([{ code: 'digest_mismatch', line: 1 }])
  })
})
