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
