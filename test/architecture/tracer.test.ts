// The tracer behind test/architecture/path.test.ts (issue 25 item 6): the source transform keeps every file of src/
// compiling, and a window holds only what its request caused, whatever else runs meanwhile.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import ts from 'typescript'
import { transformWithOxc } from 'vite'
import { afterAll, describe, expect, test } from 'vitest'
import { instrumentSource, instrumentTree, isTracedSource } from './support/instrument.js'
import { callPath } from './support/path.js'
import { REPO, START_FOLDER } from './support/trace-example.js'
import { PathTracer } from './support/tracer.js'

describe('the tracer', () => {
  const tmp = join(REPO, '.path-trace-tmp')
  mkdirSync(tmp, { recursive: true })
  const dir = mkdtempSync(join(tmp, 'unit-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const write = (file: string, text: string) => {
    mkdirSync(dirname(join(dir, 'fixture', file)), { recursive: true })
    writeFileSync(join(dir, 'fixture', file), text)
  }

  test('keeps a request window to the code the request caused: a logger running meanwhile is outside it', async () => {
    // A listener in the start folder that answers later through a wrapped `passthrough` (as the interception library
    // calls it), an awaited answer that waits a turn of the event loop, and a logger that ticks on its own schedule.
    write(
      'sources/index.ts',
      `import { route } from '../route.js'
interface Controller { passthrough(): unknown; respondWith(r: Response): void }
export async function listener({ request, controller }: { request: Request; controller: Controller }): Promise<void> {
  controller.passthrough = async () => {
    const response = await route(request)
    controller.respondWith(response)
  }
}
`,
    )
    write(
      'route.ts',
      `import { answer } from './answer.js'\nexport async function route(request: Request): Promise<Response> {\n  return new Response(await answer(request))\n}\n`,
    )
    write(
      'answer.ts',
      `export async function answer(request: Request): Promise<string> {\n  await new Promise<void>((resolve) => setImmediate(resolve))\n  return request.url\n}\n`,
    )
    write('log.ts', `export const lines: string[] = []\nexport function tick(): void {\n  lines.push('tick')\n}\n`)
    const tree = instrumentTree(join(dir, 'fixture'), join(dir, 'out'), { startFolder: START_FOLDER })
    expect(tree).toMatchObject({ files: 4, functions: 6 })

    const tracer = new PathTracer([{ name: 'x', method: 'GET', url: 'http://svc/x' }], START_FOLDER)
    const g = globalThis as { __fluxTrace?: unknown }
    g.__fluxTrace = tracer
    try {
      const { listener } = (await import(join(tree.dir, 'sources/index.ts'))) as { listener: (e: object) => Promise<void> }
      const { tick } = (await import(join(tree.dir, 'log.ts'))) as { tick: () => void }
      let answered: Response | undefined
      const controller = { passthrough: () => {}, respondWith: (r: Response) => void (answered = r) }
      // queued before the window opens: it runs while the answer waits
      setImmediate(tick)
      await listener({ requestId: '1', request: new Request('http://svc/x'), controller })
      await controller.passthrough()
      tick() // after the answer: a straggler
      expect(await answered?.text()).toBe('http://svc/x')
    } finally {
      tracer.disable()
      delete g.__fluxTrace
    }
    const out = tracer.output()
    expect(out.missing).toEqual([])
    expect(out.stale).toEqual([])
    const path = callPath(out.windows[0])
    expect(path.endedBy).toBe('controller.respondWith')
    expect(path.outside).toBe(2) // the tick that ran inside the window: its enter and exit
    expect(path.stays.map((s) => `${s.via} ${s.file}`)).toEqual([
      'entry src/sources/index.ts', // the listener, then (same file) the wrapped passthrough the library called
      'entry src/route.ts',
      'entry src/answer.ts',
      'return src/route.ts', // answer awaits: control is back in route, which awaits too
      'return src/sources/index.ts',
      'return src/answer.ts', // a turn later the answer goes on
      'return src/route.ts',
      'return src/sources/index.ts', // where the answer is handed to the controller
    ])
  })

  test('every source file of src/ still compiles once instrumented, with the transform the runner uses', async () => {
    const broken: string[] = []
    for (const file of ts.sys.readDirectory(join(REPO, 'src'), ['.ts'])) {
      if (!isTracedSource(file)) continue
      const id = file.slice(REPO.length)
      const { text } = instrumentSource(readFileSync(file, 'utf8'), id, { passParams: id.startsWith(START_FOLDER) })
      try {
        await transformWithOxc(text, file, { lang: 'ts' })
      } catch (e) {
        broken.push(`${id}: ${(e as Error).message.split('\n')[0]}`)
      }
    }
    expect(broken).toEqual([])
  })
})
