/**
 * A glob as a RegExp over `/`-separated relative paths: `**` any path (`**​/` any folders, none too), `*` any part of
 * a name, `?` one character. Whole-suite mode's `include` and `fluxlab drift`'s fixture filters use it.
 * @example
 * globToRegExp('test/agents/**').test('test/agents/weather.test.ts') // true
 */
export function globToRegExp(glob: string): RegExp {
  let re = ''
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]
    if (c === '*' && glob[i + 1] === '*') {
      re += '.*'
      i++
      if (glob[i + 1] === '/') i++
    } else if (c === '*') re += '[^/]*'
    else if (c === '?') re += '[^/]'
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`^${re}$`)
}
