import { formatMessage, isFluxError } from '../errors.js'
import { VERSION } from '../version.js'
import { splitCommand } from './args.js'
import { CliError, EXIT, usage } from './errors.js'
import { HELP } from './help.js'
import { Output } from './output.js'

type Command = (argv: string[], out: Output) => Promise<number>

/** Loaded on demand: `--help` and `--version` stay fast, and each command pulls in only what it needs. */
const COMMANDS: Record<string, () => Promise<Command>> = {
  test: async () => (await import('./commands/test.js')).testCommand,
  record: async () => (await import('./commands/run.js')).recordCommand,
  replay: async () => (await import('./commands/run.js')).replayCommand,
  serve: async () => (await import('./commands/serve.js')).serveCommand,
  show: async () => (await import('./commands/show.js')).showCommand,
  diff: async () => (await import('./commands/diff.js')).diffCommand,
  scan: async () => (await import('./commands/scan.js')).scanCommand,
  sessions: async () => (await import('./commands/sessions.js')).sessionsCommand,
  drift: async () => (await import('./commands/drift.js')).driftCommand,
  report: async () => (await import('./commands/report.js')).reportCommand,
}

/**
 * Run the CLI with `argv` (without `node` and the script) and return the exit code.
 * Every error ends as one STYLE message on stderr; a stack trace only for a bug.
 * @example
 * process.exitCode = await main(process.argv.slice(2))
 */
export async function main(argv: string[], out = new Output()): Promise<number> {
  const [command, ...rest] = argv
  try {
    if (command === undefined || command === '--help' || command === '-h') {
      out.line(HELP.main)
      return command === undefined ? EXIT.usage : EXIT.ok
    }
    if (command === '--version' || command === '-v' || command === 'version') {
      out.line(VERSION)
      return EXIT.ok
    }
    if (command === 'help') {
      const topic = rest[0] ?? 'main'
      if (!HELP[topic]) throw usage(undefined, `there is no command "${topic}"`)
      out.line(HELP[topic])
      return EXIT.ok
    }
    const load = COMMANDS[command]
    if (!load)
      throw usage(undefined, `there is no command "${command}"${command.startsWith('-') ? '' : `; the commands are ${Object.keys(COMMANDS).join(', ')}`}`)
    const own = command === 'record' || command === 'replay' || command === 'serve' ? splitCommand(rest).own : rest
    if (own.includes('--help') || own.includes('-h')) {
      out.line(HELP[command])
      return EXIT.ok
    }
    return await (await load())(rest, out)
  } catch (e) {
    if (e instanceof CliError) {
      out.error(formatMessage(e.parts))
      return e.exitCode
    }
    if (isFluxError(e)) {
      out.error(e.message)
      return EXIT.error
    }
    out.error({
      failed: `run fluxlab ${command ?? ''}`.trim(),
      reason: `an unexpected error: ${(e as Error)?.stack ?? String(e)}`,
      fix: 'This is a bug in fluxlab; please report it with the command you ran',
    })
    return EXIT.error
  }
}
