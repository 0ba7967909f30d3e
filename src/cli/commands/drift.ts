import { relative, sep } from 'node:path'
import { upstreamFrom } from '../../context/options.js'
import { readFlag } from '../../golden/update-mode.js'
import { isReplayKey } from '../../context/replay-keys.js'
import { FluxError, formatMessage, isFluxError } from '../../errors.js'
import { redactMessage } from '../../secrets/redact.js'
import { VERSION } from '../../version.js'
import { readFixture } from '../../cassette/fixture.js'
import { parse } from '../args.js'
import { fixtureRoot, loadConfig } from '../config.js'
import { CliError, EXIT } from '../errors.js'
import { display, selectFixtures } from '../fixtures.js'
import type { Output } from '../output.js'
import { compareResponse, type LiveResponse } from '../drift/compare.js'
import { buildRequest, planRequest, type PlannedRequest } from '../drift/request.js'
import { renderChange, type ShapeChange } from '../drift/shape.js'

/** How long one live request may take, body included. */
const TIMEOUT_MS = 120_000
/** The plural ending of a count's noun. */
const s = (n: number): string => (n === 1 ? '' : 's')

interface StepResult {
  step: string
  status: 'ok' | 'changed' | 'error' | 'skipped'
  changes: ShapeChange[]
  reason?: string
}

interface FixtureResult {
  name: string
  dir: string
  status: 'ok' | 'changed' | 'error' | 'skipped'
  steps: StepResult[]
}

/** `fluxlab drift --json` output. Documented in docs/cli.md; additions only within `v1`. */
interface DriftJson {
  schema: 'fluxlab.drift/v1'
  fluxlabVersion: string
  root: string
  ok: boolean
  dryRun: boolean
  summary: { fixtures: number; unchanged: number; changed: number; unchecked: number; requests: number }
  plan: Array<{ host: string; family: string; requests: number; keyVars: string[]; target: string; upstream: boolean }>
  fixtures: FixtureResult[]
  /** Set when the command could not check anything (no fixtures, a key missing, bad config). */
  error?: { exitCode: number; message: string }
}

/**
 * `fluxlab drift [names or globs…]`: re-send every fixture's recorded model requests to the live
 * provider and compare the shape of what comes back with the recording. Reads fixtures, never writes them.
 * @example
 * await driftCommand(['billing/*'], out) // 0 shapes held · 1 a shape changed · 3 could not check
 */
export async function driftCommand(argv: string[], out: Output): Promise<number> {
  const { values, positionals } = parse('drift', argv, {
    dir: { type: 'string' },
    config: { type: 'string' },
    'dry-run': { type: 'boolean' },
    json: { type: 'boolean' },
  })
  const json = values.json === true
  const dryRun = values['dry-run'] === true
  const doc: DriftJson = {
    schema: 'fluxlab.drift/v1',
    fluxlabVersion: VERSION,
    root: '',
    ok: false,
    dryRun,
    summary: { fixtures: 0, unchanged: 0, changed: 0, unchecked: 0, requests: 0 },
    plan: [],
    fixtures: [],
  }
  try {
    const code = await drift(positionals, values, dryRun, doc, json ? undefined : out, out)
    // @note answers are read from the live provider, not from a scanned fixture: redact the document like any output.
    if (json) out.raw(`${redactMessage(JSON.stringify(doc, null, 2))}\n`)
    return code
  } catch (e) {
    if (json && (e instanceof CliError || isFluxError(e))) {
      const exitCode = e instanceof CliError ? e.exitCode : EXIT.error
      const message = e instanceof CliError ? formatMessage(e.parts) : e.message
      out.raw(`${redactMessage(JSON.stringify({ ...doc, error: { exitCode, message } }, null, 2))}\n`)
    }
    throw e
  }
}

async function drift(
  positionals: string[],
  values: { dir?: string; config?: string },
  dryRun: boolean,
  doc: DriftJson,
  /** Where the report goes (undefined under --json); the plan always goes to stderr. */
  report: Output | undefined,
  out: Output,
): Promise<number> {
  const { options } = await loadConfig(values.config)
  const root = fixtureRoot(values.dir, options)
  doc.root = display(root)
  const dirs = selectFixtures(positionals, root, `check the fixtures under ${display(root)} for drift`)
  const upstream = upstreamFrom(options)
  const fixtures = dirs.map((dir) => {
    const fx = readFixture(dir, { disable: options.redact?.disable, rerun: false })
    const rel = relative(root, dir).split(sep).join('/')
    return { name: rel && !rel.startsWith('..') ? rel : display(dir), dir: display(dir), plans: fx.model.map((cell) => planRequest(cell, upstream)) }
  })
  const sends = fixtures.flatMap((f) => f.plans.filter((p) => !p.skip))
  const distinct = new Map<string, PlannedRequest>()
  for (const p of sends) distinct.set(sendKey(p), p)
  doc.plan = printPlan(out, fixtures.length, sends.length, [...distinct.values()], dryRun)
  doc.summary.fixtures = fixtures.length
  if (distinct.size === 0)
    throw new CliError(EXIT.error, {
      failed: 'check the fixtures for drift',
      reason: `none of the ${fixtures.reduce((n, f) => n + f.plans.length, 0)} recorded model calls can be re-sent (each is listed with why)`,
      fix: 'Re-record them with FLUX_GOLDEN=update, or name other fixtures',
      details: fixtures.flatMap((f) => f.plans.map((p) => `${f.name} ${p.step}: ${p.skip ?? 'no model call'}`)).slice(0, 12),
    })
  if (dryRun) {
    doc.ok = true
    return EXIT.ok
  }

  if (readFlag('FLUX_OFFLINE'))
    throw new FluxError('FLUX_OFFLINE', {
      failed: 'check the fixtures for drift',
      reason: `FLUX_OFFLINE=1 forbids live requests, and drift sends ${distinct.size} to the live provider${s(doc.plan.length)}; nothing was sent`,
      fix: 'Unset FLUX_OFFLINE for the drift job, or see the plan with `npx fluxlab drift --dry-run`',
    })
  const keys = resolveKeys([...distinct.values()])
  const secrets = [...new Set(keys.values())].filter((k): k is string => k !== undefined)
  const scrub = (text: string) => secrets.reduce((t, k) => t.split(k).join('[REDACTED]'), text)
  const answers = new Map<string, Promise<LiveResponse | { failed: string }>>()
  for (const [i, f] of fixtures.entries()) {
    const steps: StepResult[] = []
    for (const p of f.plans) {
      if (p.skip) {
        steps.push({ step: p.step, status: 'skipped', changes: [], reason: p.skip })
        continue
      }
      out.progress(`drift ${i + 1}/${fixtures.length} ${f.name} ${p.step} → ${p.target.host}`)
      const k = sendKey(p)
      if (!answers.has(k)) answers.set(k, send(p, keys.get(p.keyVars.join(' ')), scrub))
      const live = await answers.get(k)!
      if ('failed' in live) steps.push({ step: p.step, status: 'error', changes: [], reason: live.failed })
      else if (isOk(p.cell.response.status) && !isOk(live.status))
        steps.push({
          step: p.step,
          status: 'error',
          changes: [],
          reason: scrub(`${p.host} answered HTTP ${live.status}${errorText(live)}, so there is no answer to compare`),
        })
      else {
        const changes = compareResponse(p.cell, live).map((c) => ({ ...c, ...(c.live ? { live: scrub(c.live) } : {}) }))
        steps.push({ step: p.step, status: changes.length ? 'changed' : 'ok', changes })
      }
    }
    out.clearProgress()
    const status = steps.some((r) => r.status === 'changed')
      ? 'changed'
      : steps.some((r) => r.status === 'error')
        ? 'error'
        : steps.every((r) => r.status === 'skipped')
          ? 'skipped'
          : 'ok'
    const result: FixtureResult = { name: f.name, dir: f.dir, status, steps }
    doc.fixtures.push(result)
    if (report) printFixture(report, result)
  }
  const changed = doc.fixtures.filter((f) => f.status === 'changed').length
  const errors = doc.fixtures.filter((f) => f.status === 'error').length
  doc.summary = {
    fixtures: fixtures.length,
    unchanged: doc.fixtures.filter((f) => f.status === 'ok').length,
    changed,
    unchecked: fixtures.length - changed - doc.fixtures.filter((f) => f.status === 'ok').length,
    requests: answers.size,
  }
  doc.ok = changed === 0 && errors === 0
  if (doc.ok) {
    report?.line()
    report?.line(
      out.c.green(
        `✓ ${fixtures.length} fixture${fixtures.length === 1 ? '' : 's'}: the providers still answer in the recorded shape (${answers.size} ` +
          `request${answers.size === 1 ? '' : 's'} sent, no fixture written).`,
      ),
    )
    return EXIT.ok
  }
  report?.line()
  out.error({
    failed: `confirm the recorded shape of ${changed + errors} of ${fixtures.length} fixture${fixtures.length === 1 ? '' : 's'}`,
    reason: [
      changed ? `${changed} changed shape, each change listed above as a JSON path` : '',
      errors ? `${errors} could not be checked, each with its reason above` : '',
    ]
      .filter(Boolean)
      .join('; '),
    fix: changed
      ? 'If the new shape is what your code should handle, re-record those fixtures with FLUX_GOLDEN=update (the command is in each scenario.yaml) and check ' +
        'your agent against it'
      : 'Fix the cause named above (key, upstream, network) and run `npx fluxlab drift` again',
  })
  return changed ? EXIT.failed : EXIT.error
}

const isOk = (status: number) => status >= 200 && status < 300
const sendKey = (p: PlannedRequest) => `${p.target.href}\0${p.cell.key}`

function errorText(live: LiveResponse): string {
  const text = live.body.trim().replace(/\s+/g, ' ')
  return text ? `: ${text.length > 200 ? `${text.slice(0, 199)}…` : text}` : ''
}

/** Before anything is sent, on stderr: what, where, with which key variable, and that it costs money. */
function printPlan(out: Output, fixtures: number, sends: number, distinct: PlannedRequest[], dryRun: boolean): DriftJson['plan'] {
  const byHost = new Map<string, PlannedRequest[]>()
  for (const p of distinct) byHost.set(`${p.host}\0${p.cell.family}`, [...(byHost.get(`${p.host}\0${p.cell.family}`) ?? []), p])
  const same = sends - distinct.length
  const identical = same ? ` (${same} identical one${s(same)} sent once)` : ''
  const what = `${distinct.length} recorded model request${s(distinct.length)} from ${fixtures} fixture${s(fixtures)}`
  out.note(`drift ${dryRun ? 'would re-send' : 're-sends'} ${what} to the live provider${s(byHost.size)}${identical}:`)
  const plan: DriftJson['plan'] = []
  for (const ps of byHost.values()) {
    const p = ps[0]
    const key = p.keyVars.length ? `key from ${p.keyVars.join(' or ')}` : 'no key (a local server)'
    out.err.write(
      `  • ${p.host} (${p.cell.family}): ${ps.length} request${ps.length === 1 ? '' : 's'}, ` +
        `${key}${p.upstream ? `, sent to ${p.target.origin} (upstream)` : ''}\n`,
    )
    for (const note of new Set(ps.flatMap((x) => x.notes))) out.err.write(`      ${note}\n`)
    plan.push({ host: p.host, family: p.cell.family, requests: ps.length, keyVars: p.keyVars, target: p.target.origin, upstream: p.upstream })
  }
  out.note(
    dryRun
      ? '--dry-run: nothing was sent. Without it, this needs the provider keys and costs money (every request is billed as a new call).'
      : 'This needs the provider keys and costs money: every request is billed as a new call. Fixtures are only read, never written.',
  )
  return plan
}

/** The key of every key-variable set the plan needs; a missing one is an error naming the variable, before anything is sent. */
function resolveKeys(plans: PlannedRequest[], env: NodeJS.ProcessEnv = process.env): Map<string, string | undefined> {
  const keys = new Map<string, string | undefined>()
  const missing = new Map<string, PlannedRequest[]>()
  for (const p of plans) {
    const id = p.keyVars.join(' ')
    if (missing.has(id)) missing.get(id)!.push(p)
    if (keys.has(id) || missing.has(id)) continue
    // @note fluxlab's own replay placeholder is no key: it would only buy a 401.
    const value = p.keyVars.map((v) => env[v]?.trim()).find((v) => v && !isReplayKey(v))
    if (value || p.keyVars.length === 0) keys.set(id, value)
    else missing.set(id, [p])
  }
  if (missing.size === 0) return keys
  const sets = [...missing.keys()].map((id) => id.split(' '))
  const one = sets.length === 1 && sets[0].length === 1
  throw new FluxError('FLUX_NO_KEY', {
    failed: 'check the fixtures for drift',
    reason:
      `${sets.map((vars) => vars.join(' / ')).join(' and ')} ${one ? 'is' : 'are'} not set, and drift sends the recorded requests to the live provider ` +
      `with the real key; nothing was sent`,
    fix: `Set ${sets.map((vars) => vars[0]).join(' and ')} to a key for the provider (drift costs money), or see the plan with \`npx fluxlab drift --dry-run\``,
    details: [...missing.values()].map((ps) => `${ps[0].host}: ${ps.length} request${ps.length === 1 ? '' : 's'}`),
  })
}

async function send(p: PlannedRequest, key: string | undefined, scrub: (t: string) => string): Promise<LiveResponse | { failed: string }> {
  const { url, init } = buildRequest(p, key)
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) })
    const body = await res.text()
    return { status: res.status, contentType: res.headers.get('content-type') ?? undefined, body: scrub(body) }
  } catch (e) {
    const err = e as Error & { cause?: { code?: string; message?: string } }
    const why = err.name === 'TimeoutError' ? `no whole answer within ${TIMEOUT_MS / 1000} s` : (err.cause?.code ?? err.cause?.message ?? err.message)
    return {
      failed: scrub(
        `${p.cell.request.method} ${p.target.origin}${p.target.pathname} failed ` +
          `(${why})${p.upstream ? '' : '; to send it elsewhere, set FLUX_UPSTREAM=<host>=<url> or "upstream" in fluxlab.config.mjs'}`,
      ),
    }
  }
}

function printFixture(out: Output, f: FixtureResult): void {
  const { c } = out
  const sent = f.steps.filter((r) => r.status !== 'skipped').length
  const mark = f.status === 'ok' ? c.green('✓') : f.status === 'changed' ? c.red('✗') : c.yellow('!')
  const what = { ok: 'shape unchanged', changed: 'shape changed', error: 'could not check', skipped: 'nothing to re-send' }[f.status]
  out.line(`${mark} ${f.name}  ${c.dim(`${sent} request${sent === 1 ? '' : 's'} · ${what}`)}`)
  for (const r of f.steps) {
    if (r.status === 'skipped') out.line(`    ${c.dim(`${r.step} not checked: ${r.reason}`)}`)
    else if (r.status === 'error') out.line(`    ${c.yellow('•')} ${r.step} ${r.reason ?? ''}`)
    else for (const ch of r.changes) out.line(`    ${c.red('•')} ${r.step} ${renderChange(ch)}`)
  }
}
