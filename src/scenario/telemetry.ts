/**
 * OpenTelemetry exports are the app's instrumentation, not its agent's traffic: an OTLP/HTTP export (`POST …/v1/traces`,
 * `/v1/metrics`, `/v1/logs`) is never put on a tape. Its body changes every run (ids, timestamps, durations), so a
 * recorded one could never be matched again, and a test that exports telemetry failed its replay (measured on a real
 * suite, bench/third-party/README.md). It goes where it would go without fluxlab; under FLUX_OFFLINE it gets the
 * network error of a collector that is down, said once per collector, since it may not leave the machine.
 */
import { readFlag } from '../golden/update-mode.js'
import { notice } from '../errors.js'
import type { Admission } from '../sources/index.js'

/**
 * The path of an OTLP/HTTP export (a `POST`). A pattern, not a function: the router tests it inline, so a request's
 * path through the router enters no file for it (test/architecture/path.test.ts).
 * @example
 * request.method === 'POST' && OTLP_EXPORT.test(url.pathname)
 */
export const OTLP_EXPORT = /\/v1\/(traces|metrics|logs)$/

const warned = new Set<string>()

/**
 * What becomes of an OTLP export: `undefined` (it passes untouched), or, under FLUX_OFFLINE, an answer after the app's
 * own mocks: a network error.
 * @example
 * if (request.method === 'POST' && OTLP_EXPORT.test(url.pathname)) return telemetryAdmission(url)
 */
export function telemetryAdmission(url: URL): Admission | undefined {
  if (!readFlag('FLUX_OFFLINE')) return undefined
  return {
    preempts: false,
    answer: async () => {
      if (!warned.has(url.host)) {
        warned.add(url.host)
        console.warn(
          notice(
            `OpenTelemetry exports to ${url.host} are not recorded or replayed, and FLUX_OFFLINE=1 keeps them on the machine: each is answered as a ` +
              `collector that is down`,
          ),
        )
      }
      return Response.error()
    },
  }
}
