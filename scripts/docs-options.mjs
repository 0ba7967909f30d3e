// Write the options and environment tables of docs/configuration.md from src/context/option-docs.ts (issue 28):
// `npm run docs:options`. test/docs/options-table.test.ts fails while the page and the rows differ.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { withTables } from '../src/context/option-docs.js'

const page = join(fileURLToPath(new URL('..', import.meta.url)), 'docs/configuration.md')
const text = readFileSync(page, 'utf8')
const next = withTables(text)
if (next !== text) writeFileSync(page, next)
console.log(`docs:options: ${next === text ? 'docs/configuration.md is up to date' : 'wrote the tables in docs/configuration.md'}`)
