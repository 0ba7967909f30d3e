/** Shared helpers for the judge tests: a clean environment per test, temp dirs, judge servers, fake keys. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach } from 'vitest'
import { startJudgeServer, type Family, type JudgeServer } from './judge-server.js'

/** Env vars that change the mode, and every judge key and base URL variable. */
const JUDGE_ENV = [
  'CI',
  'FLUX_GOLDEN',
  'FLUX_OFFLINE',
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'GOOGLE_GENERATIVE_AI_API_KEY',
  'OPENAI_BASE_URL',
  'ANTHROPIC_BASE_URL',
  'GEMINI_BASE_URL',
  'LOCALJUDGE_API_KEY',
  'LOCALJUDGE_BASE_URL',
] as const

/** Real-looking fake keys: the secret scan recognises each shape. */
export const FAKE_KEYS = {
  openai: 'sk-proj-' + 'A1b2'.repeat(12),
  anthropic: 'sk-ant-api03-' + 'Z9y8'.repeat(12),
  gemini: 'AIza' + 'Qw3r'.repeat(8) + 'Ty7',
} as const

export const KEY_VAR: Record<Family, string> = { openai: 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY', gemini: 'GEMINI_API_KEY' }
export const BASE_VAR: Record<Family, string> = { openai: 'OPENAI_BASE_URL', anthropic: 'ANTHROPIC_BASE_URL', gemini: 'GEMINI_BASE_URL' }
export const MODEL: Record<Family, `${string}/${string}`> = {
  openai: 'openai/gpt-4.1-mini',
  anthropic: 'anthropic/claude-haiku-4-5',
  gemini: 'google/gemini-2.5-flash',
}

const dirs: string[] = []
const closers: Array<() => Promise<void>> = []

/**
 * Call once at the top of a test file: each test starts with the mode env vars, judge
 * keys and base URLs unset (restored afterwards); servers and temp dirs are cleaned up.
 */
export function useJudgeSandbox(): void {
  const saved: Record<string, string | undefined> = {}
  beforeEach(() => {
    for (const k of JUDGE_ENV) {
      saved[k] = process.env[k]
      delete process.env[k]
    }
  })
  afterEach(async () => {
    for (const k of JUDGE_ENV) {
      if (saved[k] === undefined) delete process.env[k]
      else process.env[k] = saved[k]
    }
    await Promise.all(closers.splice(0).map((c) => c()))
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
  })
}

/** A fresh temp directory, removed after the test. */
export function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'flux-judge-'))
  dirs.push(d)
  return d
}

/** A judge server, closed after the test (closing twice is fine). */
export async function judgeServer(): Promise<JudgeServer> {
  const s = await startJudgeServer()
  let closed = false
  const close = s.close
  s.close = async () => {
    if (closed) return
    closed = true
    await close()
  }
  closers.push(() => s.close())
  return s
}

/** Point a family's env vars (key and base URL) at the server. */
export function useFamily(family: Family, server: JudgeServer): void {
  process.env[KEY_VAR[family]] = FAKE_KEYS[family]
  process.env[BASE_VAR[family]] = server.baseURL(family)
}

/** The message of a rejected promise, without ANSI colours. */
export async function rejection(p: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await p
  } catch (e) {
    return e as Error & { code?: string }
  }
  throw new Error('expected a rejection, and it resolved')
}

export const stripAnsi = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '')
