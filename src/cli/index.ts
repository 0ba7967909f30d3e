#!/usr/bin/env node
// The `fluxlab` bin. Everything lives in main.ts; this file only runs it.
import { main } from './main.js'

void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code
})
