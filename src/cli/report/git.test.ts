import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { changedFixtures, fixtureAt } from './git.js'

const repo = realpathSync(mkdtempSync(join(tmpdir(), 'flux-report-git-')))
afterAll(() => rmSync(repo, { recursive: true, force: true }))
const root = join(repo, 'tests/scenarios')
const put = (rel: string, text: string) => {
  mkdirSync(dirname(join(root, rel)), { recursive: true })
  writeFileSync(join(root, rel), text)
}
const git = (...args: string[]) => {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...args], { cwd: repo, encoding: 'utf8' })
  if (r.status !== 0) throw new Error(r.stderr)
}
const fixture = (name: string, model = 'm1') => {
  put(`${name}/scenario.yaml`, `name: ${name}\n`)
  put(`${name}/model.jsonl`, `${model}\n`)
}

describe('changedFixtures', () => {
  test('names every fixture whose files differ from the revision (committed, unstaged, untracked, removed) and no other', () => {
    git('init', '-q', '-b', 'main')
    for (const n of ['same', 'edited', 'removed', 'parent', 'billing/refund', 'staged']) fixture(n)
    fixture('parent/forks/alt')
    put('.files/a.test.ts.yaml', 'keys: []\n')
    git('add', '.')
    git('commit', '-q', '-m', 'fixtures')
    fixture('edited', 'm2') // unstaged
    fixture('staged', 'm2')
    git('add', 'tests/scenarios/staged')
    fixture('parent/forks/alt', 'm2') // a fork changed, its parent not
    fixture('added') // untracked
    rmSync(join(root, 'removed'), { recursive: true })
    put('.files/a.test.ts.yaml', 'keys: [X]\n') // not a fixture
    put('billing/refund/trace.snap', 'new trace\n') // a fixture's other file
    const { top, fixtures } = changedFixtures('HEAD', root, repo)
    expect(top).toBe(repo)
    expect(fixtures.map((f) => relative(root, f.dir))).toEqual(['added', 'billing/refund', 'edited', 'parent/forks/alt', 'removed', 'staged'])
    expect(fixtures.find((f) => f.dir.endsWith('added'))!.oldFiles).toEqual([])
    expect(fixtures.find((f) => f.dir.endsWith('edited'))!.oldFiles).toEqual(['tests/scenarios/edited/model.jsonl', 'tests/scenarios/edited/scenario.yaml'])
  })

  test('writes a fixture as it was at the revision', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'flux-report-old-'))
    const { fixtures } = changedFixtures('HEAD', root, repo)
    const edited = fixtures.find((f) => f.dir.endsWith('edited'))!
    const dir = fixtureAt('HEAD', repo, edited.oldFiles, scratch)
    expect(readdirSync(dir).sort()).toEqual(['model.jsonl', 'scenario.yaml'])
    expect(readFileSync(join(dir, 'model.jsonl'), 'utf8')).toBe('m1\n')
    rmSync(scratch, { recursive: true, force: true })
  })

  test('an unknown revision and a directory outside git are errors that say what to do (exit 3)', () => {
    expect(() => changedFixtures('no-such-branch', root, repo)).toThrow('git knows no commit "no-such-branch"')
    const outside = mkdtempSync(join(tmpdir(), 'flux-report-nogit-'))
    try {
      expect(() => changedFixtures('HEAD', outside, outside)).toThrow(/compare the fixtures with HEAD/)
    } finally {
      rmSync(outside, { recursive: true, force: true })
    }
  })
})
