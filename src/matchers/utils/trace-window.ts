import type { Outcome } from '../../scenario/outcome.js'

/**
 * The rendered trace lines around a step (`model#3`), indented, for failure messages.
 * Falls back to the trace's last lines when the step is not in it (an off-tape call never reached the trace).
 * @example
 * traceAround(outcome, 'model#3')
 */
export function traceAround(outcome: Outcome, step: string | undefined, radius = 3): string {
  const lines = outcome.trace().trimEnd().split('\n')
  const token = step?.split(' ')[0]
  let at = token ? lines.findIndex((l) => new RegExp(`^\\d+ ${token.replace('#', '#')}( |$)`).test(l)) : -1
  if (at < 0) at = lines.length - 1
  const from = Math.max(1, at - radius)
  const to = Math.min(lines.length, at + radius + 1)
  return lines
    .slice(from, to)
    .map((l, i) => `${from + i === at ? '›' : ' '} ${l}`)
    .join('\n')
}
