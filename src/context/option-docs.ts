/**
 * Issue 28: the options and environment tables of docs/configuration.md, as data. `npm run docs:options` writes them
 * between the page's `<!-- options:start -->` / `<!-- env:start -->` markers, and test/docs/options-table.test.ts fails
 * when the page, these rows, `FluxOptions` and the `FLUX_*` variables src/ reads disagree. Edit the wording here.
 * @note cells are markdown, written with plain `|`: the table escapes it.
 */
import type { FluxOptions } from './options.js'
import { codecs } from '../providers/registry.js'

/** One row of the options table. */
interface OptionRow {
  /** The option's type as `FluxOptions` declares it (an alias of options.ts spelled out). */
  type: string
  default: string
  /** The variable that sets the option when it is not set (it has a row in {@link ENV_ROWS}). */
  env?: `FLUX_${string}`
  doc: string
}

/** One row of the environment table; `name` is `A` or `A / B`. */
interface EnvRow {
  name: string
  values: string
  doc: string
}

/** Every option of `FluxOptions`, in the table's order; a key added to or removed from the interface fails typecheck here. */
export const OPTION_ROWS = {
  dir: { type: 'string', default: '`tests/scenarios`', doc: "where fixtures live, relative to the vitest root or jest's working directory" },
  timing: {
    type: "'recorded' | number",
    default: 'unset',
    doc:
      "replay pacing: unset serves chunks as fast as the client reads; `'recorded'` waits the recorded gaps between chunks; a number scales them " +
      '(`0.5` = twice as fast)',
  },
  ignore: {
    type: 'string[]',
    default: '`[]`',
    doc:
      'extra JSON paths of request bodies that never count toward a match (`metadata.trace_id`, `messages[*].cache_control`); added to the built-in ' +
      'ones (see [matching](matching-and-divergence.md#request-keys))',
  },
  normalize: {
    type: 'NormalizeRule[]',
    default: '`[]`',
    doc:
      "rules, `'iso-dates'`, `'uuids'`, `'temp-paths'`, `'model-dates'` or `{ pattern: RegExp | string, replace: string }` (a string is literal), " +
      'that rewrite the canonical request (its path and body strings) before it is keyed, never what is sent, the stored response or what the ' +
      'agent gets; a changed set asks for a re-record (see [normalize](matching-and-divergence.md#normalize-a-request-part-that-changes-every-run))',
  },
  hosts: {
    type: 'Record<string, ProviderFamily>',
    default: '`{}`',
    doc:
      `\`host\` or \`host:port\` → provider family (${codecs.map((c) => `\`${c.family}\``).join(', ')}): ` +
      'that family wins for the host when its codec accepts the path (see [fixtures](fixtures.md#the-model-channel))',
  },
  maxBytes: {
    type: 'number',
    default: '`FLUX_CASSETTE_MAX_BYTES`, else 1 MiB',
    env: 'FLUX_CASSETTE_MAX_BYTES',
    doc: 'the largest body stored whole (see [truncation](fixtures.md#truncated-bodies))',
  },
  pricing: {
    type: 'PricingTable',
    default: 'built-in `PRICES`',
    doc: 'USD per million tokens by model id, winning over the built-in table for `toCostUnder`, `Outcome.cost()` and the run summary',
  },
  redact: {
    type: 'RedactorConfig',
    default: 'built-in rules',
    doc:
      'redaction rules added to the built-in ones: `headers`, `queryParams`, `bodyPaths`, `replace`, `disable` (see ' +
      '[secrets](fixtures.md#secrets-and-redaction))',
  },
  scenarios: {
    type: "'explicit' | 'per-test'",
    default: "`FLUX_SCENARIOS`, else `'explicit'`",
    env: 'FLUX_SCENARIOS',
    doc: "`'per-test'` turns on [whole-suite mode](#whole-suite-mode): every test is its own scenario; `'explicit'` records only what `scenario()` runs",
  },
  upstream: {
    type: 'Record<string, string>',
    default: '`FLUX_UPSTREAM`, merged (the option wins per host)',
    env: 'FLUX_UPSTREAM',
    doc:
      "while recording, a host's live traffic goes to this base URL instead (a gateway such as LiteLLM, a proxy, a local emulator): " +
      "`{ 'api.openai.com': 'http://localhost:4000' }`; the path and query are kept (after the base's own path), and the fixture keeps the host " +
      "the client called, so replay needs neither. `HTTPS_PROXY`/`HTTP_PROXY` are not read by Node's `fetch`; use `upstream` or a dispatcher of " +
      'your own',
  },
  include: {
    type: 'string[]',
    default: 'every test file',
    doc:
      "with `scenarios: 'per-test'`, only test files matching these globs (relative to the project root; `**` any path, `*` any name part); " +
      "a file they leave out is not fluxlab's at all: its requests, at load, in hooks and in tests, pass untouched, " +
      'as without fluxlab (not recorded, replayed or refused)',
  },
  keys: {
    type: 'string[]',
    default: '`FLUX_KEYS` (comma-separated), merged',
    env: 'FLUX_KEYS',
    doc:
      "more variables that get a placeholder on replay when unset, beside the ones a test file's fixtures name: only for a gate on a variable whose " +
      "value never reaches the wire (`keys: ['RUN_LIVE_TESTS']`); see [provider keys on replay](#provider-keys-on-replay). A name that is not a " +
      'variable name is `FLUX_BAD_CONFIG`',
  },
  childBaseUrls: {
    type: 'boolean',
    default: '`FLUX_CHILD_BASE_URLS`, else `false`',
    env: 'FLUX_CHILD_BASE_URLS',
    doc:
      "give child processes of a run the providers' base-URL variables (`OPENAI_BASE_URL`, `OPENAI_API_BASE`, `ANTHROPIC_BASE_URL`, " +
      '`GOOGLE_GEMINI_BASE_URL`) pointed at a loopback endpoint of the run, so a child fluxlab cannot preload (Python, Go, a script that resets ' +
      "`NODE_OPTIONS`) is on the tape too; the fixture keeps the provider's host " +
      '(see [child processes](process-tree.md#processes-fluxlab-cannot-preload))',
  },
  endCheck: {
    type: "'failures' | 'strict' | 'off'",
    default: "`FLUX_END_CHECK`, else `'failures'`",
    env: 'FLUX_END_CHECK',
    doc:
      "what the end-of-test check does with divergences the test did not assert on, for every run in the test: `'failures'` fails the test on a " +
      "failure-level divergence; `'strict'` fails on drift warnings too; `'off'` prints the report as a warning and lets the test's result stand " +
      '(the run summary still counts the scenario as failed)',
  },
} satisfies Record<keyof FluxOptions, OptionRow>

/** The variables a user sets, in the table's order. Those fluxlab sets, and its internal ones, are listed under it by hand. */
export const ENV_ROWS: readonly EnvRow[] = [
  {
    name: 'FLUX_GOLDEN',
    values: '`update`, `snapshots`, `judge`',
    doc: 'the update switch (see [modes](#modes)); anything else is an error (`FLUX_BAD_CONFIG`) listing the valid values; unset means replay',
  },
  {
    name: 'FLUX_OFFLINE',
    values: '`1`/`true`/`yes` or `0`/`false`/`no` (unset: off)',
    doc:
      'forbids every live request in every mode, with or without a fixture, to any host: recording fails, a what-if `live` becomes a halt, ' +
      '`s.check` misses and live judge grading are errors, and in whole-suite mode any request no fixture and no mock of yours answers is refused ' +
      '(`FLUX_OFFLINE`); in explicit mode fluxlab sees only what runs inside `scenario().run()`. Any other value is an error',
  },
  {
    name: 'FLUX_CASSETTE_MAX_BYTES',
    values: 'a positive whole number of bytes (default `1048576`)',
    doc: 'the largest body stored whole, when the `maxBytes` option is not set; anything else is an error',
  },
  {
    name: 'FLUX_CACHE_DIR',
    values: 'a directory, or `off`',
    doc:
      'where fluxlab remembers which large fixture contents passed every read check, so a later read only parses them (see [how files are ' +
      'read](fixtures.md#how-files-are-read)); default `node_modules/.cache/fluxlab`, else your own private directory under the OS temp dir',
  },
  {
    name: 'FLUX_SCENARIOS',
    values: '`explicit` or `per-test`',
    doc: 'whole-suite mode when the `scenarios` option is not set (see [whole-suite mode](#whole-suite-mode)); another value is `FLUX_BAD_CONFIG`',
  },
  {
    name: 'FLUX_UPSTREAM',
    values: '`host=url[,host=url…]`',
    doc:
      'the `upstream` map from the environment (the option wins per host); a pair that is not `host=url`, or a base that is not an absolute URL, is ' +
      '`FLUX_BAD_CONFIG`',
  },
  {
    name: 'FLUX_KEYS',
    values: 'variable names, comma-separated',
    doc:
      'more variables a replay fills when unset, merged with the `keys` option (see [provider keys on replay](#provider-keys-on-replay)); a name ' +
      'that is not a variable name is `FLUX_BAD_CONFIG`',
  },
  {
    name: 'FLUX_END_CHECK',
    values: '`failures`, `strict` or `off`',
    doc: 'the end-of-test check when the `endCheck` option is not set (see the options table); another value is `FLUX_BAD_CONFIG`',
  },
  { name: 'FLUX_CHILD_BASE_URLS', values: 'boolean as `FLUX_OFFLINE` (default off)', doc: 'the `childBaseUrls` option when it is not set' },
  {
    name: 'FLUX_AUTO_RESURRECT',
    values: 'boolean as `FLUX_OFFLINE` (default on)',
    doc: '`0` stops `durable()` from resuming an unfinished journal by itself: it throws `FLUX_UNFINISHED_RUN` instead (see [durable runs](durable-runs.md))',
  },
  {
    name: 'FLUX_REPORT',
    values: 'a file path',
    doc: '`fluxlab record`/`replay`: write the run report there (as `--report`, see [CLI](cli.md#--report-schema-fluxlabrunv1))',
  },
  {
    name: 'FLUX_CRASH_AT',
    values: '`<step>:before-append` or `<step>:after-append`',
    doc: 'test hook of crash-cut tests: a `durable()` run kills itself (`SIGKILL`) at that boundary, e.g. `tool#2:before-append`',
  },
  {
    name: 'CI',
    values: 'any non-empty value other than `0`/`false`',
    doc: 'update state `none` when no runner says otherwise: nothing is recorded or written implicitly; the run summary colours live model calls red',
  },
  {
    name: 'GITHUB_ACTIONS / FLUX_GITHUB',
    values: '`true` (set by GitHub) / `0`',
    doc:
      "under `GITHUB_ACTIONS=true` the run summary reporters add annotations at the failing tests' lines and the run summary to `$GITHUB_STEP_SUMMARY` " +
      '(see [CI](ci.md#github-actions)); `FLUX_GITHUB=0`, or the reporter option `github: false`, turns that off',
  },
  {
    name: 'FLUX_LAST_RUN',
    values: 'a file path, or `0`',
    doc:
      'where the vitest, jest and Playwright reporters write the last run for [`fluxlab report`](cli.md#fluxlab-report-names-or-globs) ' +
      "(relative to the runner's root; default `node_modules/.cache/fluxlab/last-run.json` in the nearest folder at or above it " +
      'that has a `node_modules`); `0` writes none',
  },
  {
    name: 'NO_COLOR / FORCE_COLOR',
    values: 'set / `1`',
    doc: 'colours in the CLI and the run summary: off when piped or `NO_COLOR` is set, forced on with `FORCE_COLOR` (`FORCE_COLOR=0` forces them off)',
  },
]

const cell = (text: string) => text.replace(/\|/g, '\\|')
const row = (cells: readonly string[]) => `| ${cells.map(cell).join(' | ')} |`
const code = (name: string) =>
  name
    .split(' / ')
    .map((n) => `\`${n}\``)
    .join(' / ')

const TABLES = {
  options: () => [
    '| option | type | default | what it does |',
    '|---|---|---|---|',
    ...Object.entries(OPTION_ROWS).map(([name, r]: [string, OptionRow]) => row([`\`${name}\``, `\`${r.type}\``, r.default, r.doc])),
  ],
  env: () => ['| variable | values | what it does |', '|---|---|---|', ...ENV_ROWS.map((r) => row([code(r.name), r.values, r.doc]))],
}

/**
 * `markdown` with its generated tables rewritten from the rows above; a page without both pairs of markers is an error.
 * @example
 * writeFileSync(page, withTables(readFileSync(page, 'utf8')))
 */
export function withTables(markdown: string): string {
  let out = markdown
  for (const [name, lines] of Object.entries(TABLES)) {
    const block = new RegExp(`<!-- ${name}:start[^>]*-->\\n[\\s\\S]*?<!-- ${name}:end -->`)
    if (!block.test(out)) throw new Error(`no <!-- ${name}:start --> … <!-- ${name}:end --> block`)
    const start = `<!-- ${name}:start (generated by \`npm run docs:options\` from src/context/option-docs.ts) -->`
    out = out.replace(block, () => [start, ...lines(), `<!-- ${name}:end -->`].join('\n'))
  }
  return out
}
