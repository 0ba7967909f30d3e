import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Fixture } from '../cassette/cell.js'
import type { RedactorConfig } from '../cassette/redact.js'
import { FluxError } from '../errors.js'
import { Journal } from '../cassette/journal.js'
import type { ResurrectReport } from '../cassette/journal.js'

/** Where the agent of a crash-cut test lives: a function cannot cross into a child process, its module can. */
export type AgentModule = string | URL | { module: string | URL; export?: string }

export type CrashWhen = 'before-append' | 'after-append'

/** One crash-and-resume at one boundary. */
export interface CrashRow {
  step: string
  when: CrashWhen
  /** The child was killed at the boundary (false: the run never reached it). */
  crashed: boolean
  /** The second child resumed and finished. */
  resumed: boolean
  /** Live starts per tool step over both processes (a journaled result served on resume does not count). */
  toolExecutions: Record<string, number>
  /** Live starts per model step over both processes. */
  modelRequests: Record<string, number>
  /** What the resume reported as at-least-once. */
  inFlight: string[]
  resurrected?: ResurrectReport
  error?: string
}

export interface CrashReport {
  scenario: string
  rows: CrashRow[]
}

/** dist/durable-child.js, next to this code's chunk in dist/ (or built from src/ when running from source). */
function childScript(): string {
  const here = fileURLToPath(import.meta.url)
  return here.endsWith('.ts') ? join(dirname(here), '../../dist/durable-child.js') : join(dirname(here), 'durable-child.js')
}

/**
 * Kill the agent (SIGKILL) at one step boundary while it runs durably against the recording, resume it, and report
 * what ran how often.
 * @example
 * const row = await crashAt(fixture, 'tool#1', 'before-append', './agent.mjs')
 */
export async function crashAt(fixture: Fixture, step: string, when: CrashWhen, agent: AgentModule, redact?: RedactorConfig): Promise<CrashRow> {
  const { module, exportName } = agentSpec(agent)
  const state = mkdtempSync(join(tmpdir(), 'flux-crash-'))
  const env = {
    FLUX_CHILD_AGENT: module,
    FLUX_CHILD_EXPORT: exportName,
    FLUX_CHILD_WORLD: fixture.dir,
    FLUX_CHILD_STATE: join(state, 'journal'),
    ...(redact ? { FLUX_CHILD_REDACT: encodeRedact(redact) } : {}),
  }
  const row: CrashRow = { step, when, crashed: false, resumed: false, toolExecutions: {}, modelRequests: {}, inFlight: [] }
  try {
    if (!existsSync(childScript())) throw new Error(`${childScript()} is missing: build fluxlab first (npm run build)`)
    const first = await runChild({ ...env, FLUX_CRASH_AT: `${step}:${when}` })
    row.crashed = first.signal === 'SIGKILL'
    if (!row.crashed)
      row.error = `the run never reached ${step} (${when}): it exited with ${first.code}${first.stderr ? `: ${first.stderr.trim().split('\n').pop()}` : ''}`
    const second = await runChild(env)
    row.resumed = second.code === 0
    if (row.resumed) {
      const out = JSON.parse(second.stdout.trim().split('\n').pop() ?? '{}') as { resurrected?: ResurrectReport | null }
      row.resurrected = out.resurrected ?? undefined
      row.inFlight = out.resurrected?.inFlight ?? []
    } else row.error ??= `the resume exited with ${second.code}: ${second.stderr.trim().split('\n').slice(-3).join(' ')}`
    for (const e of Journal.open(env.FLUX_CHILD_STATE, { disable: redact?.disable }).entries) {
      if (e.kind !== 'intent') continue
      const bucket = e.step.startsWith('model#') ? row.modelRequests : row.toolExecutions
      bucket[e.step] = (bucket[e.step] ?? 0) + 1
    }
  } catch (e) {
    row.error = (e as Error).message
  } finally {
    rmSync(state, { recursive: true, force: true })
  }
  return row
}

/**
 * `crashAt` at every step boundary of the recording, before and after the append.
 * @example
 * const report = await crashMatrix(fixture, 'refund', './agent.mjs')
 * expect(report).toResumeWithoutReexecution()
 */
export async function crashMatrix(fixture: Fixture, name: string, agent: AgentModule, redact?: RedactorConfig): Promise<CrashReport> {
  const steps = [...fixture.model.map((c) => ({ seq: c.seq, step: c.step })), ...fixture.tools.map((c) => ({ seq: c.seq, step: c.step.split(' ')[0] }))]
    .sort((a, b) => a.seq - b.seq)
    .map((s) => s.step)
  if (steps.length === 0)
    throw new FluxError('FLUX_BAD_CONFIG', {
      failed: `crash-test scenario "${name}"`,
      reason: 'its recording has no steps to crash at',
      fix: 'Record a run that calls a model or a tool first.',
    })
  const rows: CrashRow[] = []
  for (const step of steps) for (const when of ['before-append', 'after-append'] as const) rows.push(await crashAt(fixture, step, when, agent, redact))
  return { scenario: name, rows }
}

/** The scenario's `redact` options for the child (which journals and scans with them too); a RegExp travels as source and flags. */
function encodeRedact(redact: RedactorConfig): string {
  return JSON.stringify(redact, (_k, v: unknown) => (v instanceof RegExp ? { $regexp: v.source, flags: v.flags } : v))
}

/**
 * The `redact` options {@link crashAt} passed to its child (`FLUX_CHILD_REDACT`).
 * @example
 * durable(dir, agent, { redact: decodeRedact(process.env.FLUX_CHILD_REDACT) })
 */
export function decodeRedact(raw: string | undefined): RedactorConfig | undefined {
  if (!raw) return undefined
  return JSON.parse(raw, (_k, v: unknown) => {
    const r = v as { $regexp?: unknown; flags?: string } | null
    return r && typeof r === 'object' && typeof r.$regexp === 'string' ? new RegExp(r.$regexp, r.flags) : v
  }) as RedactorConfig
}

function agentSpec(agent: AgentModule): { module: string; exportName: string } {
  const spec = typeof agent === 'object' && !(agent instanceof URL) ? agent : { module: agent }
  const m = spec.module instanceof URL ? spec.module.href : spec.module
  const module = /^[a-z]+:/i.test(m) || isAbsolute(m) ? m : resolve(m)
  return { module, exportName: (typeof agent === 'object' && !(agent instanceof URL) && agent.export) || 'default' }
}

function runChild(env: Record<string, string>): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(FLUX_CRASH_AT|FLUX_CHILD_|NODE_OPTIONS|VITEST)/.test(k)))
    const child = spawn(process.execPath, [childScript()], { env: { ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('exit', (code, signal) => done({ code, signal, stdout, stderr }))
  })
}
