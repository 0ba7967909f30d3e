import type { McpTransport, McpTransportOptions } from '../sources/mcp-transport.js'

/** What the agent function receives from `Scenario.run`. */
export interface Lab {
  /** The scenario's name. */
  readonly scenario: string
  /** `record` when calls go live and are captured, `replay` when they come from the fixture. */
  readonly mode: 'record' | 'replay'
  /**
   * The agent's input as the fixture recorded it (`scenario(name, { input })`), so one agent
   * function can re-drive any recorded scenario (`s.check`, `whatIfOver`).
   */
  readonly input?: unknown
  /**
   * Put in-process tools on the tape, keeping their shape: an object keyed by
   * tool name (Vercel AI SDK `tools`, plain async functions) or an array of
   * named tools (OpenAI Agents JS, LangChain.js). In replay no tool body runs.
   * @example
   * generateText({ model, tools: lab.tools({ weather: tool({ inputSchema, execute }) }) })
   */
  tools<T>(tools: T): T
  /**
   * Put one in-process tool on the tape.
   * @example
   * const read = lab.tool('read', async ({ path }) => fs.readFile(path, 'utf8'))
   */
  tool<T>(name: string, tool: T): T
  /**
   * Put an MCP client's transport on the tape (`StdioClientTransport`, or any MCP SDK transport):
   * every JSON-RPC message both ways is a tool-channel cell, and in replay the server is never started.
   * @example
   * await client.connect(lab.mcp(new StdioClientTransport({ command: 'node', args: ['server.mjs'] })))
   */
  mcp<T extends McpTransport>(transport: T, options?: McpTransportOptions): T
}

/** The agent function a scenario runs. */
export type Agent<R> = (lab: Lab) => R | Promise<R>
