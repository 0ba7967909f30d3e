/**
 * `worker_threads` Workers started while a run holds the interception: a worker is a realm of its own that this
 * process's interception does not reach, and Node ignores `--import` in a worker's `execArgv`. So a worker of a run
 * starts from a line that hands it the tree's socket and token, imports the preload, then its own module: its requests
 * go on the run's tape as a child process's do (`./child-process.ts`).
 */
import { isAbsolute, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Admit } from './source.js'

/** Where the preload finds the tree in a worker (a worker's `env` may be the process's own, `SHARE_ENV`). */
export const WORKER_TREE = Symbol.for('fluxlab.tree.worker.v1')

type WorkerClass = new (filename: string | URL, options?: { eval?: boolean } & Record<string, unknown>) => object

/**
 * Patch the `Worker` export of `node:worker_threads` (`mod`) so a worker started while a run admits it is on the
 * tape. A worker of code (`eval: true`) is left as it is. Returns the undo.
 * @example
 * const undo = attachWorkers(createRequire(import.meta.url)('node:worker_threads'), admit)
 */
export function attachWorkers(mod: { Worker: WorkerClass }, admit: Admit): () => void {
  const Original = mod.Worker
  class Worker extends Original {
    constructor(filename: string | URL, options: { eval?: boolean } & Record<string, unknown> = {}) {
      const add = options.eval ? undefined : admit(undefined, { via: 'worker', process: `worker ${String(filename)}` })?.child?.()
      if (!add) {
        super(filename, options)
        return
      }
      const target =
        filename instanceof URL || /^(file|data):/.test(String(filename))
          ? String(filename)
          : pathToFileURL(isAbsolute(filename) ? filename : resolve(filename)).href
      const start =
        `globalThis[Symbol.for(${JSON.stringify(WORKER_TREE.description)})] = ${JSON.stringify(add.env)}; ` +
        `import(${JSON.stringify(add.preload)}).then(() => import(${JSON.stringify(target)}))`
      super(start, { ...options, eval: true })
      if (add.exited) (this as unknown as { once(event: 'exit', f: () => void): void }).once('exit', add.exited)
    }
  }
  mod.Worker = Worker
  return () => {
    if (mod.Worker === Worker) mod.Worker = Original
  }
}
