/** `--help` text of every command, with examples. Kept in step with docs/cli.md. */

const COMMON = `Common options:
  --dir <path>      fixture root (default: "dir" in fluxlab.config.mjs, else tests/scenarios)
  --config <file>   options file (default: fluxlab.config.mjs/.js/.cjs/.json in the working directory)
  -h, --help        this help`

const EXIT_CODES = `Exit codes: 0 ok · 1 a check failed (or the program failed) · 2 replay left the tape · 3 fluxlab could not do it · 64 bad command line`

export const HELP: Record<string, string> = {
  main: `fluxlab: record an AI agent's model and tool calls once, replay them offline.

Usage: fluxlab <command> [options]

Commands:
  test [name]               verify every fixture offline (parse, keys, secrets, truncation, redaction, trace.snap)
  record <name> -- <cmd…>   run a Node program under interception and record its calls into a fixture
  replay <name> -- <cmd…>   run it against the fixture: 0 pass · 1 the program failed · 2 it left the tape
  serve -- <cmd…>           run an app server (a Playwright webServer): each test's server-side calls on its own tape
  show <name> [--html F]    the recorded trace as a tree, or a self-contained HTML timeline
  diff <a> <b>              step-aligned diff of two fixtures' traces
  scan [paths…]             secret scan (pre-commit): file:line:rule, never the secret
  sessions --store DIR      list durable() journals, marking unfinished runs (never resumes them)
  drift [names|globs…]      re-send recorded requests to the live providers and compare the answers' shape (needs keys, costs money)
  report [names|globs…]     the whole suite as one HTML page; --since <rev>: what the agent does differently (Markdown for a PR)

Examples:
  npx fluxlab test
  npx fluxlab record triage -- node dist/agent.js "triage the failing build"
  npx fluxlab replay triage -- node dist/agent.js "triage the failing build"; echo $?
  npx fluxlab show triage --html trace.html

Run \`fluxlab <command> --help\` for a command's options. --version prints the version.
${EXIT_CODES}`,

  test: `Usage: fluxlab test [name] [--dir D] [--json] [--accept name]

Verify fixtures offline, with no network and no key: every file parses (errors name file:line),
formatVersion is readable, every key re-derives from its stored canonical request, no secret is
stored, no cell was truncated, no cell was edited since it was recorded (digest_mismatch), the
redaction marker matches today's rules, and trace.snap equals
the trace rebuilt from the cells (unified diff otherwise). Forks (<scenario>/forks/*/) are
verified too. Finding no fixtures is an error, not a pass.

Options:
  [name]            only this scenario (and its forks), e.g. triage or billing/refund
  --json            machine-readable report on stdout (schema fluxlab.test/v1, see docs/cli.md)
  --accept <name>   accept deliberate hand edits of this scenario's cells: rewrite their digests, then verify it
${COMMON}

Environment:
  FLUX_GOLDEN=snapshots   rewrite trace.snap from the cells instead of failing on a difference

Examples:
  npx fluxlab test
  npx fluxlab test triage --json
  npx fluxlab test --accept weather
  FLUX_GOLDEN=snapshots npx fluxlab test
  npx fluxlab test --dir examples/scenarios

Exit codes: 0 every fixture checks out · 1 a problem was found · 3 no fixtures / unknown scenario · 64 bad command line`,

  record: `Usage: fluxlab record <name> [options] -- <cmd…>

Run any Node program under interception, with no code change (NODE_OPTIONS=--import, so child
Node processes are included), and record every model call and HTTP tool call it makes into
<dir>/<name>/. Nothing is written when the program fails. An existing fixture is never
overwritten without FLUX_GOLDEN=update.

Options:
  --report <file>   write the run report as JSON (schema fluxlab.run/v1; also FLUX_REPORT=<file>)
${COMMON}

Examples:
  npx fluxlab record triage -- node dist/agent.js "triage the failing build"
  FLUX_GOLDEN=update npx fluxlab record triage -- node dist/agent.js "triage the failing build"

Exit codes: 0 recorded · 1 the program failed (nothing written) · 3 fixture exists, FLUX_OFFLINE, nothing seen, or a
secret blocked the write · 64 bad command line`,

  replay: `Usage: fluxlab replay <name> [options] -- <cmd…>

Run the program against the fixture: every model call and HTTP tool call is served from the tape,
nothing reaches the network (an off-tape request gets a non-retryable 400), and missing provider
keys are filled with a placeholder.

Options:
  --timing <v>      pace streamed chunks: "recorded" waits the recorded gaps, a number scales them
  --report <file>   write the run report as JSON (schema fluxlab.run/v1; also FLUX_REPORT=<file>)
${COMMON}

Examples:
  npx fluxlab replay triage -- node dist/agent.js "triage the failing build"; echo $?
  npx fluxlab replay triage --report replay.json -- node dist/agent.js

Exit codes: 0 replayed (drift printed as warnings) · 1 the program failed · 2 the program left the tape
(model_index_overflow, tool_call_unrecorded, unused_interaction, …), with a report naming the step · 3 no fixture · 64 bad command line`,

  serve: `Usage: fluxlab serve [--name N] [--cwd D] [--ready <url|port>] [options] -- <cmd…>

Run an app server under fluxlab, as a Playwright \`webServer\` (with \`test\` from fluxlab/playwright). What the
server does while handling a test's browser request (model calls, HTTP tool calls, child processes, work still
running after it answered) records into and replays from that test's fixture. Its calls outside every test's
request (start-up, warm-up) go to its own scenario, <dir>/app-server/ (--name to rename): recorded when missing,
replayed when present, refused under CI. Key variables the project's fixtures carried get placeholders where unset.
The fixture root is tests/scenarios in serve's directory (the Playwright config's, under withFluxlab()).

Options:
  --name <name>            the server's own scenario (default: app-server)
  --cwd <dir>              run the server there (withFluxlab() passes the entry's cwd)
  --ready <url|port>       check the webServer's url (or port) when the server listens, on Playwright's rule, and print
                           "[fluxlab] serve: the app server answers at <url>" on stdout once it answers
                           (withFluxlab() passes it and sets the entry's wait.stdout to that line)
  --ignore-https-errors    with an https --ready url: accept a self-signed certificate (ignoreHTTPSErrors)
${COMMON}

Examples:
  npx fluxlab serve -- node server.mjs
  npx fluxlab serve -- npm run start      (in playwright.config.ts: webServer.command)
  npx fluxlab serve --ready http://127.0.0.1:3000/health -- npm run start

Exit codes: 0 stopped by a signal, its own scenario settled · the server's own code when it failed · 2 its own
scenario left the tape · 3 fluxlab could not do it (a refused call under CI) · 64 bad command line`,

  show: `Usage: fluxlab show <name> [--html <file>]

Print the recorded trace as a tree: model turns with model id, tokens and cost, tool calls with
arguments and outputs (trimmed), the final text. With --html, write one self-contained HTML file
(no network, no external assets): a timeline of model and tool steps, streamed chunk timing,
usage and cost per step, expandable request/response bodies (as redacted in the fixture), and
for a fork the step where it diverges from its parent.

Options:
  --html <file>     write the HTML viewer to <file> instead of printing the tree
${COMMON}

Examples:
  npx fluxlab show triage
  npx fluxlab show triage --html trace.html
  npx fluxlab show triage/forks/inject-3 --html fork.html

Prices are list prices (see PRICES_AS_OF); a model with no price shows "no price", set one with
"pricing" in fluxlab.config.mjs.`,

  diff: `Usage: fluxlab diff <a> <b>

Step-aligned diff of two fixtures' traces (scenario names or paths), and at the first step that
differs, the JSON-path diff of the two requests and of the two responses' text and tool calls.

Options:
${COMMON}

Examples:
  npx fluxlab diff triage triage/forks/inject-3
  npx fluxlab diff tests/scenarios/weather other-checkout/tests/scenarios/weather

Exit codes: 0 same trace · 1 the traces differ · 3 a fixture is missing or unreadable`,

  scan: `Usage: fluxlab scan [paths…]

The fixture secret scanner over any files or directories (recursively; node_modules and .git are
skipped, binary files too). Prints file:line:rule for each finding, never the secret itself.
Without paths it scans the fixture root.

Options:
${COMMON}

Examples:
  npx fluxlab scan
  npx fluxlab scan tests/scenarios src/prompts
  git diff --cached --name-only -z | xargs -0 npx fluxlab scan     # pre-commit

Rules turned off with redact.disable in fluxlab.config.mjs are skipped.
Exit codes: 0 nothing found · 1 a secret was found · 3 a path does not exist`,
  sessions: `Usage: fluxlab sessions --store DIR [--json] [--config FILE]

Lists the durable() journals under DIR (or DIR itself when it is one), marking unfinished runs:
the ones the next durable() call on that directory resumes. Listing only reads; it never
resumes, repairs or removes anything.

Options:
  --store DIR       the directory durable() journals into (required)
  --json            machine-readable (schema fluxlab.sessions/v1)
  --config <file>   options file whose redact.disable the journals were scanned with (default: fluxlab.config.mjs/.js/.cjs/.json)

Examples:
  npx fluxlab sessions --store ./state
  npx fluxlab sessions --store ./state --json

Exit codes: 0 listed · 64 no --store`,
  drift: `Usage: fluxlab drift [names or globs…] [--dry-run] [--json] [--dir D] [--config F]

Is the recording still what the provider sends? Re-sends each fixture's recorded model requests to
the live provider (this needs the provider keys and costs money; it says what it will send before
it starts) and compares the SHAPE of each answer with the recording, never the bytes or the text:
SSE event kinds and their order (repeated deltas collapsed), JSON fields and their types
(recursively, arrays by element shape), tool-call structure, finish reasons and usage. Prints a
report per fixture with the JSON paths that changed. Never writes a fixture.

Options:
  [names or globs…]  scenarios to check (triage, billing/*, **/refund); default every fixture (forks only when named)
  --dry-run          print what would be sent (requests, providers, hosts, key variables) and stop
  --json             machine-readable report on stdout (schema fluxlab.drift/v1, see docs/cli.md); the plan stays on stderr
${COMMON}

Environment:
  OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY (or GOOGLE_API_KEY)   the real keys, sent in the provider's own header
  FLUX_UPSTREAM=host=url,…   send a host's requests to another base URL (a gateway, a proxy, a local server); also "upstream" in the config
  FLUX_OFFLINE=1             refuse to send anything (exit 3); --dry-run still prints the plan

Examples:
  npx fluxlab drift --dry-run
  OPENAI_API_KEY=sk-… npx fluxlab drift
  npx fluxlab drift 'billing/*' triage
  FLUX_UPSTREAM=api.openai.com=http://localhost:4000 npx fluxlab drift

Exit codes: 0 every answer has the recorded shape · 1 a shape changed · 3 could not check (no fixtures, a key missing,
the provider answered an error, the request failed) · 64 bad command line`,

  report: `Usage: fluxlab report [names or globs…] [--html F] [--markdown F] [--json F] [--since <rev>] [--fail-on <rule>…]

The whole suite: every fixture (steps, models, tools, tokens, cost) with what the last test run did with it (mode,
result, drift, divergences: the reporters write node_modules/.cache/fluxlab/last-run.json). With --since, a review
of the fixtures that differ from their version at a git revision: steps added or removed, a changed request (which
message, which field, the text around it), a changed answer or tool call, tokens, cost and time before → after.

Options:
  [names|globs…]        only these scenarios (billing/*, **/refund); forks only when named
  --html <file>         one self-contained page (no network): the suite, filterable, each trace as show --html draws
                        it; with --since, both versions of each changed fixture side by side
  --markdown <file>     Markdown: with --since, the review for a pull-request comment; else the suite's summary
  --json <file|->       machine-readable (schema fluxlab.report/v1); - for stdout
  --since <rev>         review the fixtures changed since this git revision (origin/main, HEAD~1, a tag)
  --fail-on <rules>     exit 1 when a rule is broken (repeatable, or comma-separated):
                          cost | cost:+20% | cost:+0.05     the changed fixtures' cost grew (at all / > 20% / > $0.05)
                          tokens | tokens:+10% | tokens:+500 the same for their tokens
                          steps | steps:+2                 a step added or removed / more than 2 added to a fixture
                          changed | added | removed        a fixture changed behaviour / was added / removed
                          failed | drift                   the last run refused, diverged or failed / warned of drift
                        (cost, tokens, steps, changed, added and removed need --since)
  --last-run <file>     the last run's file (default: FLUX_LAST_RUN, else node_modules/.cache/fluxlab/last-run.json)
${COMMON}

Examples:
  npx fluxlab report --html report.html
  npx fluxlab report --since origin/main --markdown review.md --fail-on cost:+20%,steps
  npx fluxlab report 'billing/*' --json -

Exit codes: 0 ok · 1 a --fail-on rule was broken · 3 no fixtures, not a git checkout, unknown revision · 64 bad command line (a bad rule is named)`,
}
