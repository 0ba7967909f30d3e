import https from 'node:https'
import { afterEach, describe, expect, test } from 'vitest'
import { acquireInterception } from './index.js'

/**
 * An agent as agent-base 7 makes one (`@npmcli/agent`, `https-proxy-agent`): it says 443 only when `node:https` is on
 * the call stack, as its `isSecureEndpoint()` looks.
 */
class StackSniffingAgent extends https.Agent {
  // a getter over https.Agent's data property, as agent-base defines it
  get defaultPort(): number {
    return (new Error().stack ?? '').split('\n').some((l) => l.includes('(node:https:') || l.includes('(https.js:')) ? 443 : 80
  }
  set defaultPort(_: number) {}
}

const releases: Array<(o?: { now?: boolean }) => void> = []
afterEach(() => {
  for (const r of releases.splice(0)) r({ now: true })
})

/** The URL fluxlab's router is handed for one `https.request(options)`, answered without a socket. */
async function seenUrl(options: https.RequestOptions): Promise<string> {
  let seen = ''
  releases.push(acquireInterception((req) => req && { preempts: true, answer: async () => ((seen = req.url), new Response('ok')) }))
  await new Promise<void>((resolve, reject) =>
    https
      .request(options, (res) => {
        res.resume()
        res.on('end', () => resolve())
      })
      .on('error', reject)
      .end(),
  )
  return seen
}

describe('an https.request through an agent-base agent, naming no port', () => {
  test('is seen at 443, as Node sends it without interception (not at 80)', async () => {
    expect(await seenUrl({ protocol: 'https:', hostname: 'registry.pm.test', path: '/@acme%2fagent', agent: new StackSniffingAgent() })).toBe(
      'https://registry.pm.test/@acme%2fagent',
    )
  })

  test('keeps a port it names, and a plain https.Agent is untouched', async () => {
    expect(await seenUrl({ protocol: 'https:', hostname: 'registry.pm.test', port: 8443, path: '/x', agent: new StackSniffingAgent() })).toBe(
      'https://registry.pm.test:8443/x',
    )
    expect(await seenUrl({ hostname: 'registry.pm.test', path: '/y', agent: new https.Agent() })).toBe('https://registry.pm.test/y')
  })
})
