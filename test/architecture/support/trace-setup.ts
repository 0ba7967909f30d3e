// The inner run's first setup file (before fluxlab's own, which the plugin appends): installs the tracer before any
// instrumented source loads, and writes what it recorded when the test file ends. The targets and the output path come
// from the parent (`trace-example.ts`) in FLUX_PATH_TRACE; the trace goes to a file, never to the output a test may log to.
import { writeFileSync } from 'node:fs'
import { afterAll } from 'vitest'
import { PathTracer, type Target } from './tracer.js'

const { targets, out, startFolder } = JSON.parse(process.env.FLUX_PATH_TRACE ?? '{}') as { targets: Target[]; out: string; startFolder: string }
if (!out) throw new Error('trace-setup: FLUX_PATH_TRACE is not set; run it through traceExample()')
const tracer = new PathTracer(targets, startFolder)
;(globalThis as { __fluxTrace?: unknown }).__fluxTrace = tracer

afterAll(() => {
  tracer.disable()
  writeFileSync(out, JSON.stringify(tracer.output()))
})
