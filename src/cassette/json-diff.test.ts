import { describe, expect, test } from 'vitest'
import { diffJson, renderDiff } from './json-diff.js'

describe('renderDiff of two long strings', () => {
  test('shows both around their first differing character, not a shared prefix cut short', () => {
    const prefix = 'You are analyzing the quarterly report of a company that sells garden tools. '.repeat(3)
    const [row] = renderDiff(diffJson({ content: `${prefix}Summarise it in one sentence.` }, { content: `${prefix}Summarise it in three bullets.` }))
    expect(row).toBe(
      `content differs at character ${prefix.length + 17}: "…en tools. Summarise it in one sentence." → "…en tools. Summarise it in three bullets."`,
    )
  })
})
