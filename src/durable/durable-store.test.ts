// A durable run over an in-memory store (issue 40 item 3): the journal is written and resumed through the fixture store.
import { describe, expect, test } from 'vitest'
import { listJournals } from '../cassette/journal.js'
import { useTestProvider } from '../scenario/utils/test-provider.js'
import { durable } from './durable.js'

const provider = useTestProvider()
const { hits, agent } = provider
const RUN = '/virtual-fluxlab/state/run-1'
const journal = () => Buffer.from(provider.store.readFile(`${RUN}/journal.jsonl`) ?? []).toString('utf8')

describe('durable() over an in-memory store', () => {
  test('journals each answer into the store before the agent goes on, and marks the run complete', async () => {
    const { result, resurrected } = await durable(RUN, () => agent('Weather?', ['Oslo']))
    expect(result).toBe('You asked: Weather? | snow')
    expect(resurrected).toBeUndefined()
    const entries = journal()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; step?: string; cell?: { step: string } })
    const steps = entries.map((e) => `${e.kind} ${(e.step ?? e.cell?.step)?.split(' ')[0]}`)
    expect(steps).toEqual(['intent model#1', 'cell model#1', 'intent tool#1', 'cell tool#1'])
    expect(listJournals('/virtual-fluxlab/state').map((j) => [j.dir, j.meta.status, j.cells])).toEqual([[RUN, 'complete', 2]])
  })

  test('resumes a run that stopped: the journaled model answer is served, the tool after it runs live', async () => {
    const stopped = await durable(RUN, async () => {
      await agent('Weather?')
      throw new Error('the process died here')
    }).then(
      () => undefined,
      (e: Error) => e,
    )
    expect(stopped?.message).toBe('the process died here')
    expect(listJournals('/virtual-fluxlab/state').map((j) => j.meta.status)).toEqual(['running'])
    hits.length = 0
    const { result, resurrected } = await durable(RUN, () => agent('Weather?', ['Oslo']))
    expect(result).toBe('You asked: Weather? | snow')
    expect(resurrected).toMatchObject({ servedFromJournal: 1, ranLive: 1, inFlight: [], tornTail: false })
    expect(hits).toEqual(['GET /weather?city=Oslo'])
  })
})
