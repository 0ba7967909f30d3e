/**
 * NDJSON, the body of an answer on a channel that is not HTTP on the wire (the server frames of a realtime socket,
 * the messages of an MCP server over stdio): one message a line, written and read while they come.
 */

/** The content type of such an answer. */
export const NDJSON = 'application/x-ndjson'

/**
 * Read an NDJSON body to its end, handing each non-blank line to `onLine` as soon as its line break arrives (a last
 * line without one is dropped: it was cut). A read error, or one `onLine` throws, rejects.
 * @example
 * await readLines(response.body.getReader(), (line) => socket.send(line))
 */
export async function readLines(reader: ReadableStreamDefaultReader<Uint8Array>, onLine: (line: string) => void): Promise<void> {
  const decoder = new TextDecoder()
  let buffered = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return
    buffered += decoder.decode(value, { stream: true })
    for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
      const line = buffered.slice(0, i)
      buffered = buffered.slice(i + 1)
      if (line.trim()) onLine(line)
    }
  }
}
