import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { stableJson } from '../cassette/stable-json.js'
import type { Fixture, Manifest, ModelCell, SourceTest, ToolCell } from '../cassette/cell.js'
import { writeFixture } from '../cassette/fixture-write.js'
import { FluxError } from '../errors.js'
import type { TraceStep } from '../golden/trace.js'
import { describeFault } from './faults.js'
import type { WhatIfSpec } from './intervention.js'
import { fixtureKeyVars } from './key-vars.js'
import { manifestFor } from './persist.js'
import { stepLabels } from './steps.js'

/** Where a scenario keeps its counterfactuals: `<scenario dir>/forks/<name>/`. */
const FORKS_DIR = 'forks'

/** What `scenario.yaml` of a fork says about where it comes from. */
export interface ForkOrigin {
  /** The parent scenario's name. */
  parent: string
  /** The parent's `recordedAt` when the fork was recorded (a newer parent makes the fork stale). */
  parentRecordedAt: string
  /** The change, in words (`injectAt(3, error "disk full")`). */
  change: string
}

/**
 * The stable directory name of a what-if: a readable slug of the change plus 6 hex
 * of its canonical JSON (`offTape` left out: it decides what a miss does, not the world).
 * @example
 * forkName({ inject: [{ at: 3, fault: { error: 'disk full' } }] }) // 'inject-3-error-disk-full-4c1f0a'
 */
export function forkName(spec: WhatIfSpec): string {
  if (spec.name !== undefined) {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(spec.name))
      throw new FluxError('FLUX_BAD_CONFIG', {
        failed: `name the what-if "${spec.name}"`,
        reason: 'a fork name is one directory name: letters, digits, ".", "_" and "-"',
        fix: 'Use e.g. .named("refund-disk-full").',
      })
    return spec.name
  }
  const { offTape: _offTape, name: _name, ...world } = spec
  const hash = createHash('sha256')
    .update(stableJson(jsonable(world)) ?? '')
    .digest('hex')
    .slice(0, 6)
  const slug = describeSpec(spec)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '')
  return `${slug || 'what-if'}-${hash}`
}

/**
 * The change of a what-if, in words.
 * @example
 * describeSpec({ model: 'gpt-4.1-mini' }) // 'model gpt-4.1-mini'
 */
function describeSpec(spec: WhatIfSpec): string {
  const parts: string[] = []
  if (spec.turn !== undefined) parts.push(`turn ${spec.turn}`)
  for (const { at, fault } of spec.inject ?? []) parts.push(`inject ${at} ${safeFault(fault)}`)
  for (const { at, output } of spec.substituteAt ?? []) parts.push(`substitute ${at} ${short(output)}`)
  for (const { tool, output } of spec.substitute ?? []) parts.push(`substitute ${String(tool)} ${short(output)}`)
  if (spec.model !== undefined) parts.push(`model ${spec.model}`)
  if (spec.instructions !== undefined) parts.push(`instructions ${short(spec.instructions)}`)
  if (spec.policy !== undefined) parts.push(`policy ${typeof spec.policy === 'function' ? 'fn' : short(jsonable(spec.policy))}`)
  return parts.join(' ')
}

function safeFault(f: unknown): string {
  try {
    return describeFault(f as never)
  } catch {
    return short(f)
  }
}

const short = (v: unknown) => {
  const s = typeof v === 'string' ? v : (JSON.stringify(jsonable(v)) ?? 'undefined')
  return s.length > 40 ? s.slice(0, 40) : s
}

/** RegExps and functions as text, so a spec hashes the same every run. */
function jsonable(v: unknown): unknown {
  if (v instanceof RegExp) return String(v)
  if (typeof v === 'function') return `fn:${v.toString()}`
  if (Array.isArray(v)) return v.map(jsonable)
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, jsonable(x)]))
  return v
}

/**
 * Write a counterfactual run as a fixture beside its parent: every step it made
 * (served, injected, or recorded live) renumbered in run order, a manifest that
 * names its parent and change, and its trace.
 * @example
 * writeFork({ dir, name, steps, trace, origin, base: parent.manifest, redaction, maxBytes })
 */
export function writeFork(input: {
  dir: string
  name: string
  steps: readonly TraceStep[]
  trace: string
  origin: ForkOrigin
  base: Manifest
  /** The test that recorded the fork (default: the parent's). */
  source?: SourceTest
  redaction: string
  /** The `normalize` marker its requests were keyed under. */
  normalize?: string
  maxBytes: number
  disable?: readonly string[]
}): void {
  const labels = stepLabels(input.steps)
  const model: ModelCell[] = []
  const tools: ToolCell[] = []
  input.steps.forEach((s, i) => {
    const step = labels[i].split(' ')[0]
    if (s.channel === 'model') model.push({ ...s.cell, seq: i + 1, step })
    else tools.push({ ...s.cell, seq: i + 1, step })
  })
  const source = input.source ?? input.base.source
  const manifest: Manifest & { fork: ForkOrigin } = {
    ...manifestFor({
      name: input.name,
      model,
      source,
      input: input.base.input,
      keyVars: fixtureKeyVars({ manifest: input.base, model }),
      maxBytes: input.maxBytes,
      redaction: input.redaction,
      normalize: input.normalize,
    }),
    fork: input.origin,
  }
  const fx: Fixture = { dir: input.dir, manifest, model, tools, trace: input.trace }
  writeFixture(fx, { disable: input.disable })
}

/** The fork's directory for a what-if of the scenario at `dir`. */
export const forkDir = (dir: string, name: string): string => join(dir, FORKS_DIR, name)
