// Issue 41 item 3: the GitHub workflow docs/ci.md documents is checked as the other docs samples are. Every ```yaml
// block in the docs parses (with `yaml`, as GitHub's parser reads YAML 1.2); the workflow in docs/ci.md runs on the
// events it describes (replay on push, re-record on a label with keys from secrets, drift on a schedule), and every
// `npx fluxlab …` it runs is a command of our CLI with options that command has (its --fail-on rules parse).
import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import { parse } from 'yaml'
import { HELP } from '../../src/cli/help.js'
import { parseFailOn } from '../../src/cli/report/fail-on.js'

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)))

/** The ```yaml blocks of a page, with their first line. */
function yamlBlocks(page: string): Array<{ line: number; code: string }> {
  const lines = readFileSync(join(ROOT, 'docs', page), 'utf8').split('\n')
  const out: Array<{ line: number; code: string }> = []
  for (let i = 0; i < lines.length; i++) {
    if (!/^```ya?ml\s*$/.test(lines[i])) continue
    const end = lines.findIndex((l, j) => j > i && l.startsWith('```'))
    out.push({ line: i + 2, code: lines.slice(i + 1, end).join('\n') })
    i = end
  }
  return out
}

interface Step {
  run?: string
  uses?: string
  if?: string
  with?: Record<string, unknown>
  env?: Record<string, string>
}
interface Job {
  if?: string
  permissions?: Record<string, string>
  steps: Step[]
}
interface Workflow {
  on: { push?: unknown; pull_request?: { types: string[] }; schedule?: Array<{ cron: string }> }
  jobs: Record<string, Job>
}

const workflowBlock = yamlBlocks('ci.md').find((b) => b.code.startsWith('# .github/workflows/'))
const workflow = parse(workflowBlock?.code ?? '') as Workflow

/** Each `npx fluxlab <command> <args…>` of a job, its arguments split as a shell would split these simple lines. */
function fluxlabCommands(job: Job): string[][] {
  return job.steps.flatMap((s) => (s.run ?? '').split('\n').flatMap((l) => [...l.matchAll(/npx fluxlab ([^|;&>]+)/g)].map((m) => m[1].trim().split(/\s+/))))
}

describe('the workflow in docs/ci.md', () => {
  test('every yaml block in the docs parses', () => {
    const pages = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'))
    const blocks = pages.flatMap((page) => yamlBlocks(page).map((b) => ({ ...b, page })))
    expect(blocks.length).toBeGreaterThanOrEqual(2)
    for (const b of blocks) expect(() => parse(b.code), `docs/${b.page}:${b.line}`).not.toThrow()
  })

  test('runs on push, on a labelled pull request and on a schedule, one job each', () => {
    expect(workflowBlock).toBeDefined()
    expect(workflow.on).toHaveProperty('push')
    expect(workflow.on.pull_request?.types).toContain('labeled')
    expect(workflow.on.schedule?.[0].cron).toMatch(/^\S+ \S+ \S+ \S+ \S+$/)
    expect(Object.keys(workflow.jobs)).toEqual(['replay', 'rerecord', 'drift'])
    expect(workflow.jobs.replay.if).toBe("github.event_name == 'push'")
    expect(workflow.jobs.rerecord.if).toContain("github.event.label.name == 'rerecord'")
    expect(workflow.jobs.drift.if).toBe("github.event_name == 'schedule'")
  })

  test('replays on push with no key, and re-records on the label with the keys from secrets', () => {
    const keys = (job: Job) => job.steps.flatMap((s) => Object.entries(s.env ?? {})).filter(([k]) => k.endsWith('_API_KEY'))
    expect(keys(workflow.jobs.replay)).toEqual([])
    expect(workflow.jobs.replay.steps.some((s) => s.run === 'npx vitest run' && !s.env)).toBe(true)
    const record = workflow.jobs.rerecord.steps.find((s) => s.run === 'npx vitest run')!
    expect(record.env?.FLUX_GOLDEN).toBe('update')
    for (const [k, v] of keys(workflow.jobs.rerecord)) expect(v).toBe(`\${{ secrets.${k} }}`)
    expect(keys(workflow.jobs.rerecord).length).toBeGreaterThan(0)
    for (const [k, v] of keys(workflow.jobs.drift)) expect(v).toBe(`\${{ secrets.${k} }}`)
  })

  test('posts the review since origin/main as a comment, from a checkout that has origin/main', () => {
    const job = workflow.jobs.rerecord
    expect(job.steps.find((s) => s.uses?.startsWith('actions/checkout@'))?.with?.['fetch-depth']).toBe(0)
    expect(job.permissions?.['pull-requests']).toBe('write')
    const report = fluxlabCommands(job).find((c) => c[0] === 'report')!
    expect(report.slice(0, 5)).toEqual(['report', '--since', 'origin/main', '--markdown', 'review.md'])
    const comment = job.steps.find((s) => s.run?.startsWith('gh pr comment'))!
    expect(comment.run).toContain('--body-file review.md')
    expect(comment.env?.GH_TOKEN).toBe('${{ github.token }}')
    expect(fluxlabCommands(workflow.jobs.drift)).toEqual([['drift']])
  })

  test('every fluxlab command it runs exists, with options that command has, and its --fail-on rules parse', () => {
    const commands = Object.values(workflow.jobs).flatMap(fluxlabCommands)
    expect(commands.map((c) => c[0]).sort()).toEqual(['drift', 'report', 'report', 'test'])
    for (const [name, ...args] of commands) {
      expect(HELP[name], `fluxlab ${name}`).toBeDefined()
      for (const flag of args.filter((a) => a.startsWith('--'))) expect(HELP[name], `fluxlab ${name} ${flag}`).toMatch(new RegExp(`\\n  ${flag}\\b`))
      const rules = args.flatMap((a, i) => (args[i - 1] === '--fail-on' ? [a] : []))
      expect(() => parseFailOn(rules, args.includes('--since')), `fluxlab ${name} ${args.join(' ')}`).not.toThrow()
    }
  })
})
