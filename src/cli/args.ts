import { parseArgs, type ParseArgsConfig } from 'node:util'
import { CliError, EXIT } from './errors.js'

type Options = NonNullable<ParseArgsConfig['options']>

/** What {@link parse} returns: each option's value typed by its `type`. */
export interface Parsed<O extends Options> {
  values: { [K in keyof O]?: O[K]['type'] extends 'string' ? string : boolean } & { help?: boolean }
  positionals: string[]
}

/**
 * Parse one command's arguments strictly (`node:util` `parseArgs`); an unknown option or a missing
 * value is a usage error (exit 64) that points at the command's `--help`.
 * @example
 * const { values, positionals } = parse('test', ['capital', '--json'], { json: { type: 'boolean' } })
 */
export function parse<O extends Options>(command: string, argv: string[], options: O): Parsed<O> {
  try {
    return parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true }) as Parsed<O>
  } catch (e) {
    throw new CliError(EXIT.usage, {
      failed: 'read the command line',
      reason: String((e as Error).message)
        .split('\n')[0]
        .replace(/\. To specify a positional argument.*$/, ''),
      fix: `See \`fluxlab ${command} --help\`.`,
    })
  }
}

/**
 * Split `fluxlab record <name> [options] -- <cmd…>` at the first `--`.
 * @example
 * splitCommand(['triage', '--', 'node', 'agent.js']) // { own: ['triage'], command: ['node', 'agent.js'] }
 */
export function splitCommand(argv: string[]): { own: string[]; command: string[] | undefined } {
  const i = argv.indexOf('--')
  return i < 0 ? { own: argv, command: undefined } : { own: argv.slice(0, i), command: argv.slice(i + 1) }
}
