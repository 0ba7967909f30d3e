import { spawn } from 'node:child_process'
import { createServer as createHttpServer } from 'node:http'
import { createServer, type AddressInfo, type Server } from 'node:net'
import { afterEach, describe, expect, test } from 'vitest'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { attachOwnServers, isLoopback, isOwnServer, nothingListens, readTreePorts, sweepDeadTrees } from './own-servers.js'

const listening = (server: Server, ...args: unknown[]) =>
  new Promise<number>((resolve, reject) => {
    server.once('error', reject)
    ;(server.listen as (...a: unknown[]) => Server)(...args, () => resolve((server.address() as AddressInfo).port))
  })
const closed = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()))
const url = (port: number, host = '127.0.0.1') => new URL(`http://${host}:${port}/health`)

const undos: Array<() => void> = []
afterEach(() =>
  undos
    .splice(0)
    .reverse()
    .forEach((u) => u()),
)

describe('attachOwnServers', () => {
  test('notes the random port of a server this process listens on, on every loopback name, until it closes', async () => {
    undos.push(attachOwnServers())
    const server = createHttpServer()
    const port = await listening(server, 0)
    expect([isOwnServer(url(port)), isOwnServer(url(port, 'localhost')), isOwnServer(url(port, '[::1]'))]).toEqual([true, true, true])
    await closed(server)
    expect(isOwnServer(url(port))).toBe(false)
  })

  test('notes nothing for a server that listened before the patch, or after its undo', async () => {
    const before = createServer()
    const port = await listening(before, 0, '127.0.0.1')
    const undo = attachOwnServers()
    expect(isOwnServer(url(port))).toBe(false)
    undo()
    const after = createServer()
    const second = await listening(after, 0, '127.0.0.1')
    expect(isOwnServer(url(second))).toBe(false)
    await Promise.all([closed(before), closed(after)])
  })

  test('never takes a host that is not loopback for an own server, whatever its port', async () => {
    undos.push(attachOwnServers())
    const server = createServer()
    const port = await listening(server, 0)
    expect(isOwnServer(new URL(`http://api.example.test:${port}/`))).toBe(false)
    const loopback = ['http://localhost:1/', 'http://127.0.0.2/', 'http://10.0.0.1/'].map((u) => isLoopback(new URL(u)))
    expect(loopback).toEqual([true, true, false])
    await closed(server)
  })

  test('forgets a fixed port noted before a bind that then failed', async () => {
    const taken = createServer()
    const port = await listening(taken, 0, '127.0.0.1')
    undos.push(attachOwnServers())
    await expect(listening(createServer(), port, '127.0.0.1')).rejects.toThrow(/EADDRINUSE/)
    expect(isOwnServer(url(port))).toBe(false)
    await closed(taken)
  })
})

describe('readTreePorts', () => {
  test('takes the port a child of the tree notes in its directory for an own server while it listens, and not after it closed', async () => {
    const tree = readTreePorts()
    undos.push(() => tree.close())
    const script = `
      import('${new URL('./own-servers.ts', import.meta.url).href}').then(async ({ attachOwnServers }) => {
        attachOwnServers(process.env.FLUX_TREE_PORTS)
        const s = (await import('node:http')).createServer()
        s.listen(0, '127.0.0.1', () => process.stdout.write(String(s.address().port) + '\\n'))
        process.stdin.on('data', () => s.close(() => process.exit(0)))
      })`
    const env = { PATH: process.env.PATH, FLUX_TREE_PORTS: tree.dir }
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], { env, stdio: ['pipe', 'pipe', 'inherit'] })
    const port = await new Promise<number>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim()))))
    expect(isOwnServer(url(port))).toBe(true)
    expect(isOwnServer(url(port, 'localhost'))).toBe(true)
    child.stdin.write('close\n')
    await new Promise((resolve) => child.once('exit', resolve))
    expect(isOwnServer(url(port))).toBe(false)
  }, 20_000)
})

describe('nothingListens', () => {
  test('is true for a loopback port nothing listens on, and false for one a server holds', async () => {
    const server = createServer()
    const port = await listening(server, 0, '127.0.0.1')
    expect(await nothingListens(url(port))).toBe(false)
    await closed(server)
    expect(await nothingListens(url(port))).toBe(true)
  })
})

describe('sweepDeadTrees', () => {
  test('removes the sockets and port directories of processes that are gone, and only those', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flux-sweep-'))
    undos.push(() => rmSync(dir, { recursive: true, force: true }))
    const gone = spawn(process.execPath, ['-e', ''])
    const deadPid = await new Promise<number>((resolve) => gone.once('exit', () => resolve(gone.pid!)))
    const names = [
      `fluxlab-${deadPid}-ab12cd34.sock`,
      `fluxlab-ports-${deadPid}-k3j4`,
      `fluxlab-${process.pid}-ab12cd34.sock`,
      `fluxlab-ports-${process.pid}-x1`,
      `fluxlab-facts-${deadPid}-ab12.jsonl`,
      'fluxlab-0.1.0.tgz',
    ]
    for (const name of names) name.includes('ports') ? mkdirSync(join(dir, name)) : writeFileSync(join(dir, name), '')
    writeFileSync(join(dir, `fluxlab-ports-${deadPid}-k3j4`, '8001'), '')
    sweepDeadTrees(dir)
    expect(readdirSync(dir).sort()).toEqual(
      [`fluxlab-${process.pid}-ab12cd34.sock`, `fluxlab-facts-${deadPid}-ab12.jsonl`, 'fluxlab-0.1.0.tgz', `fluxlab-ports-${process.pid}-x1`].sort(),
    )
  })
})
