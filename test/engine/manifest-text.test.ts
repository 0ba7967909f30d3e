/**
 * Issue 39 (bench section 6): scenario.yaml is read without the `yaml` package when it has the shape fluxlab writes
 * (src/cassette/manifest-text.ts). The manifests committed in this repository, as their recorders wrote them, are read
 * as `yaml` reads them, and most without it.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'
import { describe, expect, test } from 'vitest'
import { readSimpleYaml } from '../../src/cassette/manifest-text.js'
import { REPO } from '../e2e/support/project.js'

describe('readSimpleYaml', () => {
  test("reads the committed fixtures' manifests as yaml reads them", () => {
    const roots = ['examples/scenarios', 'examples/chat-app/tests/scenarios'].map((r) => join(REPO, r))
    let read = 0
    for (const root of roots) {
      for (const dir of readdirSync(root)) {
        let text: string
        try {
          text = readFileSync(join(root, dir, 'scenario.yaml'), 'utf8')
        } catch {
          continue
        }
        const simple = readSimpleYaml(text)
        if (simple !== undefined) read++
        expect(simple ?? parse(text)).toEqual(parse(text))
      }
    }
    expect(read, 'no committed manifest was read without yaml').toBeGreaterThan(3)
  })
})
