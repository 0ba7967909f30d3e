/**
 * Preloaded (NODE_OPTIONS=--require) into every process of a verdict.mjs run, test workers included.
 *
 * - Refuses every TCP connection to an address outside 127.0.0.0/8 and ::1 before it is looked up or
 *   opened (ECONNREFUSED on the socket), and appends one JSON line per refused connection to
 *   VERDICT_NET_LOG: the count of requests that tried to leave the machine.
 * - With VERDICT_REDIRECT=host=url,… (FLUX_UPSTREAM's format) it rewrites global fetch requests to those
 *   hosts onto the url, and `http(s).request`/`.get` ones too (clients on node-fetch or axios: openai v4 in Node). That is how the run without fluxlab reaches the emulator, and how the C' run
 *   catches, on the emulator's hit counter, a request that got past fluxlab to a vendor host: fluxlab
 *   patches fetch after this file, so this rewrite sits beneath fluxlab and sees only what fluxlab let go.
 */
'use strict'
const net = require('node:net')
const fs = require('node:fs')

const LOG = process.env.VERDICT_NET_LOG
const loopback = (h) => h === undefined || h === null || h === '' || h === 'localhost' || /^127\./.test(h) || h === '::1' || h === '[::1]' || h === '::ffff:127.0.0.1'

const connect = net.Socket.prototype.connect
net.Socket.prototype.connect = function (...args) {
  let opts = args[0]
  if (Array.isArray(opts)) opts = opts[0]
  let host
  let port
  if (opts !== null && typeof opts === 'object') {
    if (opts.path) return connect.apply(this, args)
    host = opts.host ?? 'localhost'
    port = opts.port
  } else if (typeof opts === 'number' || (typeof opts === 'string' && /^\d+$/.test(opts))) {
    port = Number(opts)
    host = typeof args[1] === 'string' ? args[1] : 'localhost'
  } else {
    return connect.apply(this, args) // a unix socket path
  }
  if (loopback(host)) return connect.apply(this, args)
  if (LOG) fs.appendFileSync(LOG, `${JSON.stringify({ host, port, pid: process.pid })}\n`)
  const err = Object.assign(new Error(`connect ECONNREFUSED ${host}:${port} (verdict net guard: no address off this machine)`), {
    code: 'ECONNREFUSED', errno: -111, syscall: 'connect', address: host, port,
  })
  process.nextTick(() => this.destroy(err))
  return this
}

const map = Object.fromEntries((process.env.VERDICT_REDIRECT ?? '').split(',').filter(Boolean).map((p) => {
  const i = p.indexOf('=')
  return [p.slice(0, i).trim().toLowerCase(), new URL(p.slice(i + 1).trim())]
}))
if (Object.keys(map).length > 0 && typeof globalThis.fetch === 'function') {
  const fetch = globalThis.fetch
  globalThis.fetch = function redirectedFetch(input, init) {
    const request = input instanceof Request ? input : undefined
    const url = new URL(request ? request.url : String(input))
    const base = map[url.host.toLowerCase()]
    if (!base) return fetch(input, init)
    const target = new URL(url.href)
    target.protocol = base.protocol
    target.host = base.host
    target.pathname = `${base.pathname.replace(/\/+$/, '')}${url.pathname}`
    if (!request) return fetch(target, init)
    return fetch(new Request(target, { method: request.method, headers: request.headers, body: request.body, duplex: 'half', signal: request.signal, redirect: request.redirect }), init)
  }
}

// node-fetch (openai v4's transport in Node), axios and got call `https.request` / `https.get`, not global fetch: the
// same rewrite at that layer. The client's agent is dropped (an https.Agent cannot carry an http: request).
if (Object.keys(map).length > 0) {
  const http = require('node:http')
  const https = require('node:https')
  for (const [mod, proto] of [[http, 'http:'], [https, 'https:']]) {
    for (const verb of ['request', 'get']) {
      const original = mod[verb]
      mod[verb] = function redirectedRequest(...args) {
        let url
        let opts
        let cb
        if (typeof args[0] === 'string' || args[0] instanceof URL) {
          url = new URL(String(args[0]))
          if (typeof args[1] === 'function') { opts = {}; cb = args[1] } else { opts = args[1] ?? {}; cb = args[2] }
        } else {
          opts = args[0] ?? {}
          cb = args[1]
        }
        const hostname = String(url ? url.hostname : (opts.hostname ?? String(opts.host ?? 'localhost').replace(/:\d+$/, ''))).toLowerCase()
        const base = map[hostname]
        if (!base || (url ? url.protocol : (opts.protocol ?? proto)) !== 'https:') return original.apply(this, args)
        const path = url ? `${url.pathname}${url.search}` : (opts.path ?? '/')
        const { agent, host, hostname: _h, port, protocol, href, origin, pathname, search, ...rest } = opts
        const target = { ...rest, protocol: base.protocol, hostname: base.hostname, port: base.port, path: `${base.pathname.replace(/\/+$/, '')}${path}` }
        const via = base.protocol === 'https:' ? https : http
        return verb === 'get' ? via.get(target, cb) : via.request(target, cb)
      }
    }
  }
}
