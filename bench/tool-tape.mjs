// The tool-on-tape rows of section 1: the capital agent with its tool as an in-process function put on the tape
// with `lab.tool('get_capital', fn)`, so a replayed run makes 2 model calls and 1 in-process tool call (no HTTP
// tool). Its fixture is recorded once, before timing, into a temp dir: the model calls go to a local server that
// serves the committed fixture's bytes (`upstream`), so the model cells are the committed ones.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { scenario } from 'fluxlab'
import { capitalAgent } from './agent.mjs'
import { fixtureServer } from './polly-nock.mjs'

/** The tool as a plain in-process function: what the msw baselines of these rows call directly. */
export const getCapital = async ({ country }) => (country === 'UK' ? 'London' : `no capital known for ${country}`)

/** The agent of these rows: the tool through `lab.tool` under fluxlab, `getCapital` itself without it. */
export const toolAgent = (lab) => capitalAgent(undefined, undefined, undefined, lab ? lab.tool('get_capital', getCapital) : getCapital)

/**
 * Record the scenario `capital-agent-tool` into a temp dir; resolves once its files are older than the fixture
 * cache's 2.5 s "racy" window (a file changed that recently is hashed at every `scenario()`), like a fixture
 * checked out before the test run.
 */
export async function recordToolTape(modelResponses, toolResponse) {
  const dir = mkdtempSync(join(tmpdir(), 'fluxlab-bench-tool-'))
  const server = await fixtureServer(modelResponses, toolResponse)
  const offline = process.env.FLUX_OFFLINE
  delete process.env.FLUX_OFFLINE
  try {
    const s = await scenario('capital-agent-tool', { dir, upstream: { 'api.openai.com': `http://127.0.0.1:${server.address().port}` } })
    const out = await s.run((lab) => toolAgent(lab))
    if (out.mode !== 'record' || out.steps.length !== 3) throw new Error(`recording the tool-on-tape fixture gave ${out.mode} with ${out.steps.length} steps, expected record with 3`)
  } finally {
    if (offline === undefined) delete process.env.FLUX_OFFLINE
    else process.env.FLUX_OFFLINE = offline
    await new Promise((resolve) => server.close(resolve))
  }
  const aged = Date.now() + 2600
  return { dir, name: 'capital-agent-tool', aged: () => new Promise((resolve) => setTimeout(resolve, Math.max(0, aged - Date.now()))), cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}
