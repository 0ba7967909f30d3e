// Hello, agent: ask for the capital of a country (it looks it up with its geography tool).
//   npx tsx examples/hello.ts UK
import { ask } from '../src/agent'

const country = process.argv[2] ?? 'UK'
console.log(await ask(`What is the capital of ${country}? Use the tool, then answer.`))
