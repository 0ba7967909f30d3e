/** Test-support helpers: recorded provider traffic loaders and a real local provider HTTP server. */
export {
  TRAFFIC_DIR,
  familyOf,
  listTrafficFiles,
  loadExchanges,
  parseSse,
  sseFromChunkLines,
  type Exchange,
  type ProviderFamily,
} from './traffic.js'
export {
  BYTES_CHUNK,
  splitBody,
  startProviderServer,
  type Chunking,
  type ProviderServer,
  type ProviderServerOptions,
  type ReceivedRequest,
  type ScriptFn,
} from './provider-server.js'
export { aiSdkAnthropicBaseURL, anthropicBaseURL, googleBaseURL, openaiBaseURL } from './base-urls.js'
