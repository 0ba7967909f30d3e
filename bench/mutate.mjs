// Seeded mutations of a fixture directory's files, for the fixture fuzz test
// (test/engine/fixture-fuzz.test.ts) and the bench (bench/fuzz.mjs). Pure: text in, text out.

/**
 * A deterministic PRNG (mulberry32): the same seed gives the same mutations on every machine.
 * @param {number} seed
 * @returns {() => number} uniform in [0, 1)
 */
export function prng(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** The mutation classes, in the order the bench prints them. */
export const CLASSES = ['field', 'chunk', 'deep', 'bytes', 'lines', 'manifest']

const pick = (rand, xs) => xs[Math.floor(rand() * xs.length)]

/** Every [parent, key] of a JSON value, root excluded, depth-first. */
function slots(value) {
  const out = []
  const walk = (v) => {
    if (Array.isArray(v)) v.forEach((c, i) => (out.push([v, i]), walk(c)))
    else if (v && typeof v === 'object') for (const k of Object.keys(v)) out.push([v, k]), walk(v[k])
  }
  walk(value)
  return out
}

/** JSON text nested `depth` deep (as text: JSON.stringify of such a value overflows the stack). */
function nested(rand) {
  const depth = pick(rand, [50, 999, 1001, 5000, 100_000])
  const open = rand() < 0.5 ? '[' : '{"a":'
  const close = open === '[' ? ']' : '}'
  return `${open.repeat(depth)}1${close.repeat(depth)}`
}

const DEEP = '\u0000deep\u0000'

/** A value of another type (or an edge of the same type) for a slot that held `v`. */
function replacement(rand, v) {
  const common = [null, 'x', '', 7, -1, 0.5, 1e300, true, [], {}, [1, 2], { z: 1 }]
  const same =
    typeof v === 'string'
      ? [`${v}x`, v.slice(0, Math.max(0, v.length - 1)), '\ud800', `${v}\udfff`, v.toUpperCase(), '\u0000']
      : typeof v === 'number'
        ? [v + 1, -v - 1, v * 1e6, String(v), v + 0.25, -0]
        : Array.isArray(v)
          ? [[...v, ...v.slice(0, 1)], v.slice(1), [...v].reverse(), [null]]
          : v && typeof v === 'object'
            ? [{ ...v, unknownField: 1 }, {}, Object.fromEntries(Object.entries(v).slice(1))]
            : []
  return pick(rand, same.length && rand() < 0.6 ? same : common)
}

function mutateField(rand, value) {
  const all = slots(value)
  if (!all.length) return 'no slots'
  const [parent, key] = pick(rand, all)
  if (rand() < 0.25 && !Array.isArray(parent)) {
    delete parent[key]
    return `delete ${String(key)}`
  }
  parent[key] = replacement(rand, parent[key])
  return `replace ${String(key)}`
}

const B64_BAD = ['!!!!', 'QUJD=', 'QQ', 'QQ=', 'Q===', 'QUJ D', 'QUJDx', '4oJ=', '****', 'QUJD\n']

function mutateChunk(rand, value) {
  const chunks = value?.response?.chunks
  if (!Array.isArray(chunks) || !chunks.length) return mutateField(rand, value)
  const i = Math.floor(rand() * chunks.length)
  const c = chunks[i]
  const op = Math.floor(rand() * 12)
  if (op === 0) chunks[i] = { t: 'x' }
  else if (op === 1) chunks[i] = { t: c.t }
  else if (op === 2) chunks[i] = { t: c.t, b64: pick(rand, B64_BAD) }
  else if (op === 3) chunks[i] = { ...c, b64: Buffer.from('other bytes').toString('base64') }
  else if (op === 4) chunks[i] = { ...c, t: -5 }
  else if (op === 5) chunks[i] = { ...c, text: '\ud83d' }
  else if (op === 6 && typeof c.text === 'string') chunks[i] = { t: c.t, b64: Buffer.from(c.text).toString('base64') }
  else if (op === 7 && typeof c.text === 'string' && c.text.length > 1) {
    const cut = Math.floor(c.text.length / 2)
    chunks.splice(i, 1, { t: c.t, text: c.text.slice(0, cut) }, { t: c.t, text: c.text.slice(cut) })
  } else if (op === 8) chunks[i] = 'data: x\n\n'
  else if (op === 9) chunks[i] = { ...c, extra: true }
  else if (op === 10) chunks[i] = { ...c, t: 1e308 }
  else chunks[i] = { ...c, text: 42 }
  return `chunk op ${op}`
}

/** One line of a JSONL text, mutated as JSON (`field`, `chunk`, `deep`). */
function mutateJsonLine(rand, text, cls) {
  const lines = text.split('\n')
  const idx = lines.map((l, i) => (l.trim() ? i : -1)).filter((i) => i >= 0)
  if (!idx.length) return text
  const i = pick(rand, idx)
  const value = JSON.parse(lines[i])
  if (cls === 'field') mutateField(rand, value)
  else if (cls === 'chunk') mutateChunk(rand, value)
  else {
    const all = slots(value)
    const [parent, key] = pick(rand, all)
    parent[key] = DEEP
  }
  lines[i] = JSON.stringify(value).replace(JSON.stringify(DEEP), () => nested(rand))
  return lines.join('\n')
}

function mutateBytes(rand, text) {
  const buf = Buffer.from(text, 'utf8')
  if (!buf.length) return Buffer.from([0xff])
  const at = Math.floor(rand() * buf.length)
  const op = Math.floor(rand() * 5)
  if (op === 0) buf[at] ^= 1 << Math.floor(rand() * 8)
  else if (op === 1) return Buffer.concat([buf.subarray(0, at), Buffer.from([pick(rand, [0xff, 0xc3, 0xe2, 0x80, 0xed])]), buf.subarray(at)])
  else if (op === 2) return buf.subarray(0, at)
  else if (op === 3) return Buffer.concat([buf.subarray(0, at), buf.subarray(Math.min(buf.length, at + 1 + Math.floor(rand() * 64)))])
  else buf[at] = pick(rand, [0x22, 0x5c, 0x7b, 0x7d, 0x2c, 0x0a, 0x00])
  return buf
}

function mutateLines(rand, text) {
  const lines = text.split('\n')
  const i = Math.floor(rand() * lines.length)
  const op = Math.floor(rand() * 6)
  if (op === 0) lines.splice(i, 0, lines[i])
  else if (op === 1) lines.splice(i, 1)
  else if (op === 2) lines.reverse()
  else if (op === 3) lines.splice(i, 0, pick(rand, ['{}', '[]', 'null', '"x"', '1', '{"seq":1}', '  ', '\r']))
  else if (op === 4) return lines.join('\r\n')
  else lines[i] = `\ufeff${lines[i]}`
  return lines.join('\n')
}

function mutateManifest(rand, text) {
  const op = Math.floor(rand() * 8)
  const lines = text.split('\n')
  const i = Math.floor(rand() * lines.length)
  if (op === 0) lines.splice(i, 1)
  else if (op === 1) lines[i] = lines[i].replace(/: .*$/, ': ')
  else if (op === 2) lines[i] = lines[i].replace(/: .*$/, ': [1, 2]')
  else if (op === 3) lines[i] = lines[i].replace(/: .*$/, ': 12')
  else if (op === 4) lines.push(`deep: ${'['.repeat(pick(rand, [100, 5000, 50000]))}${']'.repeat(pick(rand, [0, 100]))}`)
  else if (op === 5) lines.push('a: &a [x, x]', 'b: &b [*a, *a, *a, *a]', 'c: [*b, *b, *b, *b, *b]')
  else if (op === 6) lines[i] = `\t${lines[i]}`
  else return text.replace('formatVersion: 1', pick(rand, ['formatVersion: 2', 'formatVersion: "1"', 'formatVersion: 0']))
  return lines.join('\n')
}

/**
 * One seeded mutation of a fixture's files (name → text): returns the mutated files (Buffer for byte-level
 * damage) and the class it belongs to.
 * @param {Record<string, string>} files
 * @param {() => number} rand
 * @returns {{ files: Record<string, string | Buffer>, cls: string }}
 */
export function mutateFixture(files, rand) {
  const cls = pick(rand, CLASSES)
  const out = { ...files }
  const jsonl = Object.keys(files).filter((f) => f.endsWith('.jsonl') && files[f].trim())
  if (cls === 'manifest') out['scenario.yaml'] = mutateManifest(rand, files['scenario.yaml'])
  else {
    const file = cls === 'bytes' && rand() < 0.2 ? 'scenario.yaml' : pick(rand, jsonl)
    if (cls === 'bytes') out[file] = mutateBytes(rand, files[file])
    else if (cls === 'lines') out[file] = mutateLines(rand, files[file])
    else out[file] = mutateJsonLine(rand, files[file], cls)
  }
  return { files: out, cls }
}
