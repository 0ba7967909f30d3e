// Ask the agent from a shell:  node scripts/ask.mjs France
import { ask } from './agent.mjs'

const country = process.argv[2]
if (!country) {
  console.log('usage: node scripts/ask.mjs <country>')
  process.exit(0)
}
console.log(await ask(`What is the capital of ${country}? Use the tool, then answer.`))
