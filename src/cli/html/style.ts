/** The viewer's stylesheet, inlined into the page (no external assets). Light and dark. */
export const STYLE = `
:root {
  --bg:#fff; --fg:#1d2127; --dim:#6b7280; --line:#e5e7eb; --card:#f9fafb;
  --model:#2563eb; --tool:#059669; --fork:#c026d3; --bad:#dc2626; --warn:#b45309;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg:#0f1115; --fg:#e5e7eb; --dim:#9ca3af; --line:#262a33; --card:#161a21;
    --model:#60a5fa; --tool:#34d399; --fork:#e879f9; --bad:#f87171; --warn:#fbbf24;
  }
}
* { box-sizing: border-box; }
body { margin: 0; padding: 24px 32px 64px; background: var(--bg); color: var(--fg); font: 14px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
h1 { margin: 0 0 4px; font-size: 22px; } h2 { font-size: 16px; margin: 28px 0 6px; }
code, pre, .lane-label, .lane-ms, .id, .n, table { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
.meta, .dim { color: var(--dim); }
.totals { list-style: none; padding: 0; margin: 10px 0; display: flex; flex-wrap: wrap; gap: 6px 18px; }
.noprice { color: var(--warn); } .bad { color: var(--bad); } .warn { color: var(--warn); } .cost { font-weight: 600; }
.fork { border-left: 4px solid var(--fork); padding: 6px 12px; background: var(--card); }
.actions button {
  font: inherit; padding: 3px 10px; border: 1px solid var(--line); border-radius: 6px;
  background: var(--card); color: var(--fg); cursor: pointer;
}
.timeline { border: 1px solid var(--line); border-radius: 8px; padding: 8px 10px; background: var(--card); }
.lane { display: grid; grid-template-columns: 110px 1fr 70px; align-items: center; gap: 8px; height: 22px; }
.lane-ms { text-align: right; color: var(--dim); }
.track { position: relative; height: 14px; }
.bar { position: absolute; top: 0; height: 14px; border-radius: 3px; opacity: .85; overflow: hidden; }
.bar.model { background: var(--model); } .bar.tool { background: var(--tool); }
.bar.diverged { outline: 2px solid var(--fork); outline-offset: 1px; }
.bar i, .strip i { position: absolute; top: 0; bottom: 0; width: 1px; background: rgba(255,255,255,.75); }
.steps { list-style: none; padding: 0; margin: 0; display: grid; gap: 10px; }
.step { border: 1px solid var(--line); border-left: 4px solid var(--model); border-radius: 8px; padding: 10px 14px; background: var(--card); }
.step.tool { border-left-color: var(--tool); }
.step.diverged { border-color: var(--fork); box-shadow: 0 0 0 2px var(--fork) inset; }
.badge { background: var(--fork); color: #fff; border-radius: 10px; padding: 0 8px; font-size: 12px; }
.badge.injected { background: var(--warn); }
.transport { border: 1px solid currentColor; border-radius: 4px; padding: 0 5px; font-size: 11px; }
.transport.stdio { color: #7a4fd0; }
.transport.websocket { color: #1f7a8c; }
.bar.mcp-stdio { background: repeating-linear-gradient(135deg, var(--tool) 0 6px, #7a4fd0 6px 9px); }
.n { display: inline-block; min-width: 1.6em; color: var(--dim); } .id { color: var(--model); } .tool .id { color: var(--tool); }
.facts { color: var(--dim); margin: 2px 0 6px; }
.text { white-space: pre-wrap; border-left: 2px solid var(--line); padding-left: 8px; margin: 4px 0; }
.chunks { margin: 6px 0; } .strip { position: relative; height: 10px; border-radius: 2px; background: var(--line); margin: 2px 0; }
.strip i { background: var(--model); width: 2px; } .tool .strip i { background: var(--tool); }
details { margin: 4px 0; } summary { cursor: pointer; color: var(--dim); }
details[open] > summary { color: var(--fg); }
pre {
  margin: 6px 0 0; padding: 10px; max-height: 480px; overflow: auto; white-space: pre-wrap; word-break: break-word;
  background: var(--bg); border: 1px solid var(--line); border-radius: 6px;
}
table { border-collapse: collapse; margin-top: 4px; } td, th { border: 1px solid var(--line); padding: 1px 8px; text-align: right; }
.final { margin-top: 14px; padding: 8px 12px; border: 1px dashed var(--line); border-radius: 8px; white-space: pre-wrap; }
.label { color: var(--dim); margin-right: 6px; }
`
