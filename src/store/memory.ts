/**
 * A fixture store in memory (issue 40 item 3): what the scenario layer's unit tests record into and replay from, with
 * no file written. Paths are resolved as the node store would; a directory is there while it holds a file.
 */
import { dirname, join, resolve, sep } from 'node:path'
import type { FixtureStore, LineSink } from './store.js'

/** A store in memory, and what it holds: each file's bytes by resolved path. */
interface MemoryStore extends FixtureStore {
  readonly files: ReadonlyMap<string, Uint8Array>
}

/**
 * A new, empty store in memory.
 * @example
 * const store = memoryStore()
 * const restore = useFixtureStore(store)
 */
export function memoryStore(): MemoryStore {
  const files = new Map<string, Uint8Array>()
  const versions = new Map<string, number>()
  const memo = new Set<string>()
  let clock = 0
  const put = (file: string, bytes: Uint8Array) => {
    files.set(resolve(file), bytes)
    versions.set(resolve(file), ++clock)
  }
  const drop = (file: string) => {
    files.delete(resolve(file))
    versions.delete(resolve(file))
  }
  const holds = (dir: string) => {
    const prefix = resolve(dir) + sep
    return [...files.keys()].filter((f) => f.startsWith(prefix)).map((f) => f.slice(prefix.length).split(sep)[0])
  }
  const exists = (path: string) => files.has(resolve(path)) || holds(path).length > 0
  const stampOf = (dir: string, names: readonly string[]) => names.map((n) => versions.get(resolve(dir, n)) ?? 0).join(',')
  const text = (data: string) => new Uint8Array(Buffer.from(data, 'utf8'))
  return {
    files,
    read(dir, names) {
      if (!exists(dir)) return undefined
      return { files: names.map((n) => files.get(resolve(dir, n))), entries: [...new Set(holds(dir))].sort(), stamp: stampOf(dir, names) }
    },
    unchanged: (dir, names, stamp) => stampOf(dir, names) === stamp,
    exists,
    readFile: (file) => files.get(resolve(file)),
    writeFixture(dir, written, dropped = []) {
      for (const name of dropped) drop(join(dir, name))
      for (const [name, data] of Object.entries(written)) put(join(dir, name), text(data))
    },
    writeFile: (file, data) => put(file, text(data)),
    appendTo(file): LineSink {
      if (!files.has(resolve(file))) put(file, new Uint8Array())
      let open = true
      return {
        append(line) {
          if (!open) throw new Error(`${file} is closed`)
          put(file, new Uint8Array(Buffer.concat([files.get(resolve(file)) ?? new Uint8Array(), text(line)])))
        },
        close: () => void (open = false),
      }
    },
    list(root, marker) {
      const top = resolve(root)
      const found = [...files.keys()].filter((f) => f.endsWith(sep + marker) && (dirname(f) === top || f.startsWith(top + sep)))
      return found.map((f) => join(root, dirname(f).slice(top.length))).sort()
    },
    checked: () => ({ has: (key) => memo.has(key), add: (key) => void memo.add(key) }),
  }
}
