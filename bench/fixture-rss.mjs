// Child process of bench section 3: the memory one fixture load takes, in a fresh process.
// `node bench/fixture-rss.mjs <dir> read|parse` prints JSON { before, after, peak } (bytes of RSS):
// before the load, after it (the result still held), and the process's peak RSS (ru_maxrss).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { readFixture } from 'fluxlab'

const [dir, how] = process.argv.slice(2)
globalThis.gc?.()
const before = process.memoryUsage().rss
let held
if (how === 'read') held = readFixture(dir)
else {
  held = []
  for (const f of ['model.jsonl', 'tools.jsonl'])
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) if (line.trim() !== '') held.push(JSON.parse(line))
}
globalThis.gc?.()
const after = process.memoryUsage().rss
const peak = process.resourceUsage().maxRSS * 1024
console.log(JSON.stringify({ before, after, peak, kept: Boolean(held) }))
