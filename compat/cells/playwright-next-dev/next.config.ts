import type { NextConfig } from 'next'

// @note `next dev` checks npm's security advisories for next at startup (`experimental.agentUpgrade`, 'security' by
// default, skipped under CI): a call to registry.npmjs.org outside every test's request, made on record and not on
// replay. Off here; the other one it makes (next's dist-tags, when a page opens its HMR socket) is the server's own
// scenario's (see package.json's compat.upstream).
const config: NextConfig = { experimental: { agentUpgrade: false } }

export default config
