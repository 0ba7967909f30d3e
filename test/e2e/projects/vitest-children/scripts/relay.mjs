// A coordinator: hands the first country to a sub-agent in a process of its own (scripts/ask.mjs),
// then asks about the second one itself.   node scripts/relay.mjs Japan Italy
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { ask } from './agent.mjs'

const [first, second] = process.argv.slice(2)
const { stdout } = await promisify(execFile)(process.execPath, [fileURLToPath(new URL('./ask.mjs', import.meta.url)), first])
console.log(`sub-agent: ${stdout.trim()}`)
console.log(`coordinator: ${await ask(`What is the capital of ${second}? Use the tool, then answer.`)}`)
