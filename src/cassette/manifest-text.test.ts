import { parse, stringify } from 'yaml'
import { describe, expect, test } from 'vitest'
import { serializeFixture } from './fixture-write.js'
import type { Manifest } from './cell.js'
import { parseManifestText, readSimpleYaml } from './manifest-text.js'

const manifest = (over: Partial<Manifest> & Record<string, unknown> = {}): Manifest => ({
  formatVersion: 1,
  fluxlabVersion: '0.1.0',
  name: 'tests-chat-spec--answers-the-capital-of-france-2d4a19',
  source: { file: 'tests/chat.spec.ts', name: 'answers the capital of France, streamed token by token', runner: 'playwright' },
  recordedAt: '2026-12-04T20:02:49.753Z',
  models: ['gpt-4o-mini-2024-07-18'],
  providerHosts: ['api.openai.com'],
  keyVars: ['OPENAI_API_KEY'],
  cassetteMaxBytes: 1048576,
  redaction: 'v1:c63cace6',
  ...over,
})
const written = (m: Manifest) => serializeFixture({ manifest: m, model: [], tools: [] }).manifest

/** A deterministic stream of awkward strings: YAML indicators, keywords, numbers, quotes, controls, non-ASCII. */
function* awkward(count: number): Generator<string> {
  // one per `¦`, and the bar itself
  const parts = [
    ..."a¦b c¦: ¦:¦#¦ #¦-¦- ¦?¦,¦[¦]¦{¦}¦&¦*¦!¦>¦'¦''¦\"¦%¦@¦`¦\\¦\t¦\n¦ ¦0¦1¦.¦e¦3¦x¦o¦+¦~¦_¦é¦😀¦\u2028¦\u0001¦\ufeff¦\u0085¦null¦true¦False¦.inf".split('¦'),
    ...'.NaN¦0x1F¦0o17¦1e3¦012¦-5¦1.5¦yes¦no¦---¦...¦\r'.split('¦'),
    '|',
  ]
  let seed = 39
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648)
  for (let i = 0; i < count; i++) {
    let s = ''
    for (let n = next() % 5; n >= 0; n--) s += parts[next() % parts.length]
    yield s
  }
}

describe('readSimpleYaml', () => {
  test('reads every manifest fluxlab writes as yaml reads it, without falling back', () => {
    const cases = [
      manifest(),
      manifest({ source: undefined, keyVars: undefined }),
      manifest({ source: { file: 'a.test.ts', name: 'the 2nd one: with a colon', nth: 2, project: 'chromium', runner: 'vitest' } }),
      manifest({ models: [], providerHosts: [], keyVars: [] }),
      manifest({ input: 'What is the weather in Paris?', normalize: 'v1:0a1b2c3d' }),
      manifest({ input: { command: 'node agent.mjs', args: "it's 3 o'clock" } }),
      manifest({ fork: { parent: 'weather', parentRecordedAt: '2026-12-01T00:00:00.000Z', change: 'model#2 → 429' } }),
      manifest({ name: 'true', fluxlabVersion: '1.0', recordedAt: '12' }),
    ]
    for (const m of cases) {
      const text = written(m)
      expect(readSimpleYaml(text), text).toEqual(parse(text))
    }
  })

  test('gives what yaml gives, or leaves the text to yaml, for every awkward string fluxlab may write', () => {
    let simple = 0
    let total = 0
    for (const s of awkward(4000)) {
      for (const text of [written(manifest({ name: s, source: { file: 'a.ts', name: s }, models: [s, 'x'] })), stringify({ k: s, l: [s] })]) {
        const v = readSimpleYaml(text)
        total++
        if (v === undefined) continue
        simple++
        expect(v, JSON.stringify(text)).toEqual(parse(text))
      }
    }
    // most are taken; the rest (multi-line, controls, ambiguous) go to yaml
    expect(simple).toBeGreaterThan(total / 3)
  })

  test('never reads a text yaml reads differently or refuses, written by hand', () => {
    let simple = 0
    for (const s of awkward(4000)) {
      for (const text of [`k: ${s}\n`, `k:\n  - ${s}\n`, `k:\n  a: ${s}\n`, `k: ${s}\nm: 1\n`, `${s}: 1\n`, `k: "${s}"\n`, `k: '${s}'\n`]) {
        const v = readSimpleYaml(text)
        if (v === undefined) continue
        simple++
        let expected: unknown
        try {
          expected = parse(text)
        } catch (e) {
          throw new Error(`read ${JSON.stringify(text)}, which yaml refuses: ${(e as Error).message}`)
        }
        expect(v, JSON.stringify(text)).toEqual(expected)
      }
    }
    expect(simple, 'the reader took none of the texts: the check compares nothing').toBeGreaterThan(4000)
  })

  test.each([
    ['a repeated key', 'a: 1\na: 2\n'],
    ['a repeated key of a block', 'a:\n  b: 1\n  b: 2\n'],
    ['a comment', '# hi\na: 1\n'],
    ['a blank line', 'a: 1\n\nb: 2\n'],
    ['a nested block', 'a:\n  b:\n    - 1\n'],
    ['a block scalar', 'a: |-\n  x\n  y\n'],
    ['a continued plain scalar', 'a: x\n  y\n'],
    ['a document marker', '---\na: 1\n'],
    ['a flow sequence', 'a: [1, 2]\n'],
    ['an anchor', 'a: &x 1\n'],
    ['a float', 'a: 1.5\n'],
    ['a boolean', 'a: true\n'],
    ['a CRLF line end', 'a: 1\r\n'],
    ['an empty value', 'a:\n'],
    ['nothing', ''],
  ])('leaves %s to yaml', (_, text) => {
    expect(readSimpleYaml(text)).toBeUndefined()
  })
})

describe('parseManifestText', () => {
  test('falls back to yaml for a text the reader does not take, and fails as yaml does', () => {
    expect(parseManifestText('a: 1.5\nb: [x, y] # c\n')).toEqual({ a: 1.5, b: ['x', 'y'] })
    expect(() => parseManifestText('a: 1\na: 2\n')).toThrow(/unique/)
  })
})
