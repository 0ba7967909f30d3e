/**
 * The fast line checks of the fixture reader (issue 14) accept exactly what the zod schemas accept: the reader
 * trusts `isModelCell`/`isToolCell` on the happy path and asks zod only about a line they refuse, so a check that
 * accepted a line zod refuses would let a bad cell through, and one that refused a good line would cost time.
 * Checked on the seeded mutants of bench/mutate.mjs (the fuzz test's corpus), grown from every committed fixture
 * and from cells holding the fields those fixtures do not (b64 chunks, clientAbort, open, transportError, rpcId).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { mutateFixture, prng } from '../../bench/mutate.mjs'
import YAML from 'yaml'
import { isManifest, isModelCell, isToolCell } from '../../src/cassette/cell-check.js'
import { manifestSchema, modelCellSchema, toolCellSchema } from '../../src/cassette/cell-schema.js'
import { REPO } from '../e2e/support/project.js'

/** Every directory under examples/scenarios that holds a model.jsonl (forks included). */
function fixtureDirs(dir: string): string[] {
  const out: string[] = []
  for (const e of readdirSync(dir)) {
    const p = join(dir, e)
    if (!statSync(p).isDirectory()) continue
    if (readdirSync(p).includes('model.jsonl')) out.push(p)
    out.push(...fixtureDirs(p))
  }
  return out
}

const read = (dir: string, f: string) => {
  try {
    return readFileSync(join(dir, f), 'utf8')
  } catch {
    return ''
  }
}
const jsonl = (cells: object[]) => cells.map((c) => JSON.stringify(c)).join('\n') + '\n'
const parseLines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, any>)

const seeds: Array<Record<string, string>> = fixtureDirs(join(REPO, 'examples/scenarios')).map((dir) => ({
  'scenario.yaml': read(dir, 'scenario.yaml'),
  'model.jsonl': read(dir, 'model.jsonl'),
  'tools.jsonl': read(dir, 'tools.jsonl'),
}))

// Seeds with the optional fields the committed fixtures do not hold, so their mutants reach those checks.
{
  const base = seeds[0]
  const model = parseLines(base['model.jsonl'])
  const tools = parseLines(base['tools.jsonl'])
  const m0 = model[0]
  const b64 = {
    ...m0,
    response: {
      ...m0.response,
      chunks: [
        { t: 1, b64: Buffer.from('\u00e9').subarray(0, 1).toString('base64') },
        { t: 2, text: 'x' },
      ],
    },
  }
  const aborted = { ...m0, response: { ...m0.response, clientAbort: { afterChunks: m0.response.chunks.length, t: 3 } } }
  const noResponse = { ...m0, response: { status: 0, headers: {}, chunks: [] }, transportError: { name: 'Error', message: 'reset', code: 'ECONNRESET' } }
  const open = { ...m0, response: { ...m0.response, open: true }, providerError: { type: 'x', message: 'y' }, originalBytes: 10, truncated: true }
  const rpc = { ...tools[0], rpcId: 7, callId: 'c1' }
  const fn = {
    seq: 9,
    step: 'tool#9',
    kind: 'fn',
    name: 'f',
    key: tools[0].key,
    args: { a: 1 },
    error: { name: 'E', message: 'boom', data: { x: 1 } },
    durationMs: 1,
    truncated: false,
  }
  const fnOut = { ...fn, error: undefined, output: { ok: true }, injected: 'why' }
  const httpFail = { ...tools[0], response: undefined, transportError: { name: 'Error', message: 'refused' }, rpcId: 'a' }
  seeds.push({ ...base, 'model.jsonl': jsonl([b64, aborted, noResponse, open]), 'tools.jsonl': jsonl([rpc, fn, fnOut, httpFail]) })
}

/** Every JSON line of a mutant's JSONL files, with the channel it belongs to. */
function* jsonLines(files: Record<string, string | Buffer>): Generator<{ channel: 'model' | 'tool'; value: unknown }> {
  for (const [file, channel] of [
    ['model.jsonl', 'model'],
    ['tools.jsonl', 'tool'],
  ] as const)
    for (const line of String(files[file] ?? '').split('\n')) {
      let value: unknown
      try {
        value = JSON.parse(line)
      } catch {
        continue
      }
      yield { channel, value }
    }
}

describe('the fast line checks accept exactly what the schemas accept', () => {
  it('on the seeded mutants of every committed fixture (both directions)', () => {
    const rand = prng(29)
    const disagree: string[] = []
    let accepted = 0
    let refused = 0
    for (let i = 0; i < 4000; i++) {
      const seed = seeds[i % seeds.length]
      const { files, cls } = mutateFixture(seed, rand)
      for (const { channel, value } of jsonLines(files)) {
        const fast = channel === 'model' ? isModelCell(value) : isToolCell(value)
        const zod = (channel === 'model' ? modelCellSchema : toolCellSchema).safeParse(value).success
        if (fast !== zod) disagree.push(`#${i} ${cls} ${channel}: fast ${fast}, zod ${zod}: ${JSON.stringify(value).slice(0, 300)}`)
        if (zod) accepted++
        else refused++
      }
    }
    expect(disagree.slice(0, 5)).toEqual([])
    // both sides of the set are exercised
    expect(accepted).toBeGreaterThan(1000)
    expect(refused).toBeGreaterThan(1000)
  })

  it('on edge values JSON can spell: __proto__ keys, huge and negative numbers, lone surrogates, arrays for objects', () => {
    const m0 = parseLines(seeds[0]['model.jsonl'])[0]
    const t0 = parseLines(seeds[0]['tools.jsonl'])[0]
    const set = (v: object, path: string[], to: unknown) => {
      const out = structuredClone(v) as Record<string, any>
      let o = out
      for (const k of path.slice(0, -1)) o = o[k]
      o[path[path.length - 1]] = to
      return out
    }
    const cases: Array<['model' | 'tool', string]> = [
      ['model', JSON.stringify(m0).replace('"seq":', '"__proto__":{"seq":1},"seq":')],
      ['model', JSON.stringify(m0).replace('"chunks":[{', '"chunks":[{"__proto__":1,')],
      ['model', JSON.stringify(m0).replace('"headers":{', '"headers":{"__proto__":"x",')],
      ['model', JSON.stringify(set(m0, ['seq'], 0)).replace('"seq":0', '"seq":1e400')],
      ['model', JSON.stringify(set(m0, ['seq'], 0)).replace('"seq":0', '"seq":9007199254740992')],
      ['model', JSON.stringify(set(m0, ['durationMs'], -0))],
      ['model', JSON.stringify(m0).replace('"durationMs":', '"durationMs":-0,"x":')],
      ['model', JSON.stringify(set(m0, ['usage'], []))],
      ['model', JSON.stringify(set(m0, ['response', 'headers'], []))],
      ['model', JSON.stringify(set(m0, ['response', 'status'], 204))],
      ['model', JSON.stringify(set(m0, ['text'], '\ud800'))],
      ['model', JSON.stringify(set(m0, ['url'], 'not a url'))],
      ['model', JSON.stringify(set(m0, ['family'], 'toString'))],
      ['model', JSON.stringify(set(m0, ['toolCalls'], [{ id: 'a', name: 'b' }]))],
      ['model', JSON.stringify(set(m0, ['toolCalls'], [[]]))],
      ['model', JSON.stringify(set(m0, ['response', 'chunks'], [{ t: 0, text: 'a', b64: 'YQ==' }]))],
      ['model', JSON.stringify(set(m0, ['response', 'chunks'], [{ t: 0, b64: 'YR==' }]))],
      ['model', JSON.stringify(set(m0, ['response', 'headers'], { 'x-a': ' padded' }))],
      ['model', JSON.stringify(set(m0, ['response', 'headers'], { 'Content-Type': 'a' }))],
      ['model', JSON.stringify(set(m0, ['response', 'headers'], { 'content-length': '1' }))],
      ['model', JSON.stringify(set(m0, ['key'], `${m0.key.slice(0, 70)}\n`))],
      ['model', JSON.stringify(set(m0, ['key'], m0.key.toUpperCase()))],
      ['model', JSON.stringify(set(m0, ['key'], `${m0.key.slice(0, 70)}g`))],
      ['tool', JSON.stringify(set(t0, ['key'], `${t0.key}0`))],
      ['tool', JSON.stringify(set(t0, ['rpcId'], 1e400))],
      ['tool', JSON.stringify(set(t0, ['rpcId'], null))],
      ['tool', JSON.stringify(set(t0, ['kind'], 'fn'))],
      [
        'tool',
        JSON.stringify({ ...t0, kind: 'fn', response: undefined, error: { name: 'E', message: 'm' } }).replace(
          '"message":"m"',
          '"message":"m","data":{"__proto__":{}}',
        ),
      ],
      ['tool', JSON.stringify({ ...t0, kind: 'fn', response: undefined, output: 1, error: { name: 'E', message: 'm' } })],
      ['tool', JSON.stringify({ ...t0, kind: 'fn', response: undefined, output: null })],
    ]
    const disagree = cases.flatMap(([channel, line], i) => {
      const value = JSON.parse(line)
      const fast = channel === 'model' ? isModelCell(value) : isToolCell(value)
      const zod = (channel === 'model' ? modelCellSchema : toolCellSchema).safeParse(value).success
      return fast === zod ? [] : [`case ${i}: fast ${fast}, zod ${zod}`]
    })
    expect(disagree).toEqual([])
  })

  it('for scenario.yaml: on the mutants of every committed manifest and on edge values (both directions)', () => {
    const rand = prng(31)
    const values: unknown[] = []
    for (let i = 0; i < 4000; i++) {
      const { files } = mutateFixture(seeds[i % seeds.length], rand)
      try {
        values.push(YAML.parse(String(files['scenario.yaml'] ?? '')))
      } catch {
        // not YAML: the reader refuses it before either check
      }
    }
    const m0 = YAML.parse(seeds[0]['scenario.yaml']) as Record<string, unknown>
    const withField = (k: string, v: unknown) => ({ ...m0, [k]: v })
    values.push(
      ...[
        withField('name', ''),
        withField('name', '\ud800'),
        withField('formatVersion', Infinity),
        withField('cassetteMaxBytes', -0),
        withField('cassetteMaxBytes', 2 ** 53),
        withField('cassetteMaxBytes', 1.5),
        withField('models', ['a', 1]),
        withField('providerHosts', {}),
        withField('source', null),
        withField('source', { file: 'a.test.ts', name: 'n', runner: 'mocha' }),
        withField('source', { file: 'a.test.ts', name: 'n', runner: 'Mocha 10' }),
        withField('source', { file: 'a.test.ts', name: 'n', runner: 7 }),
        withField('source', { file: 'a.test.ts', name: 'n', project: 3 }),
        withField('source', { file: 'a.test.ts', name: 'n', runner: 'jest', extra: 1 }),
        withField('source', { file: 'a.test.ts', name: 'n', nth: 2 }),
        withField('source', { file: 'a.test.ts', name: 'n', nth: 1 }),
        withField('source', { file: 'a.test.ts', name: 'n', nth: 2.5 }),
        withField('source', { file: 'a.test.ts', name: 'n', nth: 2 ** 53 }),
        withField('source', { file: 'a.test.ts', name: 'n', nth: '2' }),
        withField('fork', { parent: 'p', parentRecordedAt: 'x', change: 'c' }),
        withField('fork', { parent: 'p', change: 'c' }),
        withField('recordedAt', new Date(0)),
        withField('redaction', undefined),
        [m0],
        null,
      ],
    )
    let accepted = 0
    let refused = 0
    const disagree = values.flatMap((v, i) => {
      const fast = isManifest(v)
      const zod = manifestSchema.safeParse(v).success
      if (zod) accepted++
      else refused++
      return fast === zod ? [] : [`#${i}: fast ${fast}, zod ${zod}: ${JSON.stringify(v)?.slice(0, 300)}`]
    })
    expect(disagree.slice(0, 5)).toEqual([])
    expect(accepted).toBeGreaterThan(100)
    expect(refused).toBeGreaterThan(15)
  }, 120_000) // 4000 mutants: about 10 s alone, past 30 s on a loaded 2-core machine
})
