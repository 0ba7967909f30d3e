// Make `import 'fluxlab'` resolve inside this repo (examples, end-to-end
// projects) the way it does in a user's project: node_modules/fluxlab -> ..
import { existsSync, lstatSync, mkdirSync, symlinkSync } from 'node:fs'

const link = 'node_modules/fluxlab'
let present = false
try {
  present = lstatSync(link).isSymbolicLink() || existsSync(link)
} catch {}
if (!present) {
  mkdirSync('node_modules', { recursive: true })
  try {
    symlinkSync('..', link, 'dir')
  } catch (e) {
    if (e.code !== 'EEXIST') throw e
  }
}

// …and `npx fluxlab` too (the Playwright example's webServer runs `npx fluxlab serve`), as npm links a dependency's bin.
const bin = 'node_modules/.bin/fluxlab'
let binPresent = false
try {
  binPresent = lstatSync(bin).isSymbolicLink() || existsSync(bin)
} catch {}
if (!binPresent) {
  mkdirSync('node_modules/.bin', { recursive: true })
  try {
    symlinkSync('../fluxlab/dist/cli.js', bin)
  } catch (e) {
    if (e.code !== 'EEXIST') throw e
  }
}
