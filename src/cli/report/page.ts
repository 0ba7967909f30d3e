/**
 * The frame of the report's HTML pages: one self-contained document (inline style and script, a Content-Security-Policy
 * that forbids every fetch), the `show --html` stylesheet plus the report's own rules.
 */
import { documentHead } from '../html/render.js'
import { STYLE } from '../html/style.js'

const REPORT_STYLE = `
.filters { display: flex; flex-wrap: wrap; gap: 8px 14px; align-items: center; margin: 12px 0; }
.filters input[type=search], .filters select {
  font: inherit; padding: 3px 8px; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg);
}
.filters input[type=search] { min-width: 280px; }
table.suite { border-collapse: collapse; width: 100%; font: 13px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin-top: 0; }
table.suite th, table.suite td { border: 0; border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
table.suite th { background: var(--card); }
table.suite td .dim, .problems { font-size: 12px; }
table.suite td.num, table.suite th.num { text-align: right; white-space: nowrap; }
table.suite tr[hidden] { display: none; }
.result { border-radius: 10px; padding: 0 8px; font-size: 12px; white-space: nowrap; border: 1px solid currentColor; }
.result.replayed, .result.recorded { color: var(--tool); } .result.refused, .result.diverged, .result.failed { color: var(--bad); }
.result.not-written, .result.unreadable { color: var(--warn); } .result.none { color: var(--dim); }
#trace { margin-top: 24px; border-top: 2px solid var(--line); padding-top: 8px; }
#trace[hidden] { display: none; }
.problems { margin: 4px 0; padding-left: 18px; } .problems li { color: var(--bad); } .problems li.warning { color: var(--warn); }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; } .pair > div { min-width: 0; }
.fixture { border: 1px solid var(--line); border-radius: 8px; padding: 8px 14px; margin: 14px 0; }
.changes li { margin: 3px 0; } del { color: var(--bad); } ins { color: var(--tool); text-decoration: none; }
del, ins { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; white-space: pre-wrap; word-break: break-word; }
`

/**
 * A whole document around `body`.
 * @example
 * page('fluxlab report', '<h1>…</h1>', 'document.title')
 */
export function page(title: string, body: string, script = ''): string {
  return `${documentHead(title, STYLE + REPORT_STYLE)}
${body}
<script>
${script}
</script>
</body>
</html>
`
}
