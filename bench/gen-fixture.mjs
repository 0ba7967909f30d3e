// Writes a large but realistic fixture: the cells of the committed
// capital-agent fixture, repeated with distinct seq/step/key, request bodies,
// provider ids and tool arguments, in the on-disk format of a recorded
// fixture (scenario.yaml + model.jsonl + tools.jsonl, one stable-stringified
// cell per line: what `writeFixture` writes; it is not exported, so the files
// are written here the same way).
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import stableStringify from 'fast-json-stable-stringify'

const sha = (v) => `sha256:${createHash('sha256').update(stableStringify(v)).digest('hex')}`

/** The example fixture's cells, parsed (model cells, tool cells, manifest text). */
export function readExample(dir) {
  const lines = (f) => readFileSync(join(dir, f), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l))
  return { model: lines('model.jsonl'), tools: lines('tools.jsonl'), manifest: readFileSync(join(dir, 'scenario.yaml'), 'utf8') }
}

// Ids of the example recording, swapped per copy so no two cells are byte-identical.
const ID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const idFor = (n, len) => {
  let s = ''
  let x = n * 2654435761 + 12345
  for (let i = 0; i < len; i++) {
    x = (x * 1103515245 + 12345) % 2147483648
    s += ID_CHARS[x % ID_CHARS.length]
  }
  return s
}

function variedModelCell(cell, copy, seq, step) {
  const text = JSON.stringify(cell)
  const oldCmpl = /chatcmpl-[A-Za-z0-9]+/.exec(text)?.[0]
  const oldCall = /call_[A-Za-z0-9]{24}/.exec(text)?.[0]
  let s = text
  if (oldCmpl) s = s.split(oldCmpl).join(`chatcmpl-${idFor(copy, 29)}`)
  if (oldCall) s = s.split(oldCall).join(`call_${idFor(copy + 7, 24)}`)
  const c = JSON.parse(s)
  const country = `Country ${copy}`
  c.request.body.messages[0].content = `What is the capital of ${country}? Use the tool, then answer.`
  c.seq = seq
  c.step = step
  c.durationMs = 20 + (copy % 40)
  c.key = sha(c.request)
  return c
}

function variedToolCell(cell, copy, seq, step) {
  const c = structuredClone(cell)
  const country = `C${copy}`
  c.args = { query: { country } }
  c.url = `http://127.0.0.1:4010/capital?country=${country}`
  c.response.chunks = [{ t: 3 + (copy % 9), text: JSON.stringify({ capital: `City ${copy}` }) }]
  c.seq = seq
  c.step = step
  c.key = sha({ name: c.name, args: c.args })
  return c
}

/**
 * Write `cells` cells (model and tool cells in the example's 2:1 order) to `dir`.
 * Returns the files' byte sizes and cell counts.
 */
export function generateFixture(dir, exampleDir, cells) {
  const ex = readExample(exampleDir)
  // The example's run order by seq: model#1, tool#1, model#2.
  const pattern = [...ex.model.map((c) => ({ ch: 'model', c })), ...ex.tools.map((c) => ({ ch: 'tool', c }))].sort((a, b) => a.c.seq - b.c.seq)
  const model = []
  const tools = []
  for (let i = 0; i < cells; i++) {
    const { ch, c } = pattern[i % pattern.length]
    const copy = Math.floor(i / pattern.length)
    if (ch === 'model') model.push(stableStringify(variedModelCell(c, copy, i + 1, `model#${model.length + 1}`)))
    else tools.push(stableStringify(variedToolCell(c, copy, i + 1, `tool#${tools.length + 1}`)))
  }
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'model.jsonl'), model.join('\n') + '\n')
  writeFileSync(join(dir, 'tools.jsonl'), tools.join('\n') + '\n')
  writeFileSync(join(dir, 'scenario.yaml'), ex.manifest.replace(/^name: .*$/m, 'name: bench-10k'))
  const size = (f) => statSync(join(dir, f)).size
  return {
    modelCells: model.length,
    toolCells: tools.length,
    bytes: size('model.jsonl') + size('tools.jsonl') + size('scenario.yaml'),
  }
}

/**
 * A recorded response served again with its recorded chunks, one `pull` each (the baselines and the floor of
 * bench/run.mjs and bench/replay-floor.mjs answer with it).
 * @example
 * http.post(url, () => streamed(example.model[0].response))
 */
export function streamed(rec) {
  let i = 0
  const body = new ReadableStream({
    pull(controller) {
      if (i >= rec.chunks.length) return controller.close()
      controller.enqueue(new Uint8Array(Buffer.from(rec.chunks[i++].text, 'utf8')))
    },
  })
  return new Response(body, { status: rec.status, headers: new Headers(rec.headers) })
}
