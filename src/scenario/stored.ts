import type { Manifest, ModelCell, ToolCell } from '../cassette/cell.js'
import { serializeFixture } from '../cassette/fixture-write.js'
import type { TraceStep } from '../golden/trace.js'

/**
 * Steps as a fixture stores them: each cell through the same serialization a
 * write uses and parsed back, so key order (args sorted, tool outputs kept)
 * is what a replay of the fixture will render.
 * @note a trace rendered from cells still in memory listed multi-key tool args in call order,
 * the fixture sorts them: trace.snap then never matched the first replay of a recording.
 * @example
 * renderTrace(name, asStored(run.orderedSteps()))
 */
export function asStored(steps: readonly TraceStep[]): TraceStep[] {
  const model = steps.flatMap((s) => (s.channel === 'model' ? [s.cell] : []))
  const tools = steps.flatMap((s) => (s.channel === 'tool' ? [s.cell] : []))
  const text = serializeFixture({ manifest: {} as Manifest, model, tools })
  const parse = <T>(jsonl: string): T[] =>
    jsonl
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as T)
  const m = parse<ModelCell>(text.model)
  const t = parse<ToolCell>(text.tools)
  let i = 0
  let j = 0
  return steps.map((s) => (s.channel === 'model' ? { channel: 'model', cell: m[i++] } : { channel: 'tool', cell: t[j++] }))
}

/** One cell as a fixture stores it. */
export function storedCell<T extends ModelCell | ToolCell>(channel: 'model' | 'tool', cell: T): T {
  return asStored([{ channel, cell } as TraceStep])[0].cell as T
}
