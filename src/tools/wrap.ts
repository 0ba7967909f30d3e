/**
 * Wrappers that put in-process tools on the tape. They keep each tool's shape
 * (a plain function, a Vercel AI SDK `tool({ execute })`, an OpenAI Agents JS
 * `tool()` with `invoke(runContext, input, details)`, a LangChain.js tool with
 * `invoke(input, config)`), so the agent framework cannot tell the difference.
 */

/**
 * Runs one tool call through the tape: records `run()` live, or answers from the fixture without calling it (a Promise);
 * outside every run, `run()`'s own answer, as the tool gave it.
 */
export type ToolInvoker = (call: { name: string; args: unknown; callId?: string }, run: () => unknown) => unknown

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wrappers forward whatever the framework passes
// biome-ignore lint/suspicious/noExplicitAny: any tool's parameters; `unknown[]` would refuse every typed function
type AnyFn = (...args: any[]) => unknown

/**
 * Wrap one tool.
 * @example
 * const read = wrapTool('read', async ({ path }) => fs.readFile(path, 'utf8'), invoke)
 */
export function wrapTool<T>(name: string, tool: T, invoke: ToolInvoker): T {
  if (typeof tool === 'function') return wrapFunction(name, tool as AnyFn, invoke) as T
  if (tool && typeof tool === 'object') {
    const t = tool as Record<string, unknown>
    if (typeof t.execute === 'function') return { ...t, execute: wrapFunction(name, t.execute.bind(tool) as AnyFn, invoke) } as T
    if (typeof t.invoke === 'function') {
      // @note a plain object (Agents JS) is copied so spreads keep every field; a class instance (LangChain)
      // goes through Object.create to keep its prototype chain (instanceof, schema, name).
      const plain = Object.getPrototypeOf(tool) === Object.prototype
      const wrapped = (plain ? { ...t } : Object.create(tool as object)) as Record<string, unknown>
      if (isAgentsTool(t)) wrapped.invoke = wrapAgentsInvoke(name, t.invoke.bind(tool) as AnyFn, invoke)
      // LangChain: wrap the user function under invoke(), so invoke() still builds its ToolMessage around the taped result.
      else if (typeof t.func === 'function') wrapped.func = wrapLangChainFunc(name, t.func.bind(tool) as AnyFn, invoke)
      else if (typeof t._call === 'function') wrapped._call = wrapLangChainFunc(name, t._call.bind(tool) as AnyFn, invoke)
      else wrapped.invoke = wrapLangChainInvoke(name, t.invoke.bind(tool) as AnyFn, invoke)
      return wrapped as T
    }
  }
  throw new TypeError(
    `[fluxlab] Failed to wrap tool "${name}": expected a function, an object with execute() (Vercel AI SDK), or invoke() (OpenAI Agents JS, LangChain.js). ` +
      `Pass the tool itself, e.g. lab.tools({ ${name}: tool({ execute }) }).`,
  )
}

/**
 * Wrap a set of tools: an object keyed by tool name (AI SDK `tools`), or an array of named tools (Agents JS, LangChain.js).
 * @example
 * generateText({ model, tools: lab.tools({ weather: tool({ inputSchema, execute }) }) })
 */
export function wrapTools<T>(tools: T, invoke: ToolInvoker): T {
  if (Array.isArray(tools)) return tools.map((t, i) => wrapTool(toolName(t) ?? `tool${i}`, t, invoke)) as T
  if (tools && typeof tools === 'object') {
    const out: Record<string, unknown> = {}
    for (const [name, t] of Object.entries(tools)) out[name] = wrapTool(name, t, invoke)
    return out as T
  }
  throw new TypeError('[fluxlab] Failed to wrap tools: expected an object keyed by tool name or an array of tools. Pass e.g. lab.tools({ read, write }).')
}

function wrapFunction(name: string, fn: AnyFn, invoke: ToolInvoker): AnyFn {
  return function wrappedTool(this: unknown, ...a: unknown[]) {
    // @note AI SDK calls execute(input, { toolCallId, messages, abortSignal }): the options are context, not arguments.
    const options = a[1] as { toolCallId?: unknown } | undefined
    const hasCallId = a.length >= 2 && options && typeof options === 'object' && typeof options.toolCallId === 'string'
    const args = hasCallId || a.length <= 1 ? a[0] : a
    return invoke({ name, args, callId: hasCallId ? (options.toolCallId as string) : undefined }, () => fn.apply(this, a))
  }
}

function wrapAgentsInvoke(name: string, inv: AnyFn, invoke: ToolInvoker): AnyFn {
  return (runContext: unknown, input: unknown, details?: { toolCall?: { callId?: string; id?: string } }) =>
    invoke({ name, args: parseMaybeJson(input), callId: details?.toolCall?.callId ?? details?.toolCall?.id }, () => inv(runContext, input, details))
}

function wrapLangChainFunc(name: string, fn: AnyFn, invoke: ToolInvoker): AnyFn {
  return (input: unknown, runManager?: unknown, config?: { toolCall?: { id?: string } }) =>
    invoke({ name, args: input, callId: config?.toolCall?.id }, () => fn(input, runManager, config))
}

function wrapLangChainInvoke(name: string, inv: AnyFn, invoke: ToolInvoker): AnyFn {
  return (input: unknown, config?: { toolCall?: { id?: string } }) => {
    const call = input as { type?: string; id?: string; args?: unknown } | undefined
    const isToolCall = !!call && typeof call === 'object' && call.type === 'tool_call'
    return invoke({ name, args: isToolCall ? call.args : input, callId: isToolCall ? call.id : config?.toolCall?.id }, () => inv(input, config))
  }
}

const isAgentsTool = (t: Record<string, unknown>) =>
  t.type === 'function' && 'parameters' in t && typeof t.invoke === 'function' && (t.invoke as AnyFn).length >= 2

function toolName(t: unknown): string | undefined {
  const n = (t as { name?: unknown } | undefined)?.name
  return typeof n === 'string' && n ? n : undefined
}

function parseMaybeJson(v: unknown): unknown {
  if (typeof v !== 'string') return v
  try {
    return JSON.parse(v)
  } catch {
    return v
  }
}
