/**
 * A URL's path with percent-escapes decoded (`%3A` → `:`), or as is when it
 * does not decode, so path patterns see `models/x:generateContent` however a client encoded it.
 * @example
 * decodedPath(new URL('https://h/v1beta/models/gemini-2.5-flash%3AgenerateContent')) // '/v1beta/models/gemini-2.5-flash:generateContent'
 */
export function decodedPath(url: URL): string {
  try {
    return decodeURIComponent(url.pathname)
  } catch {
    return url.pathname
  }
}
