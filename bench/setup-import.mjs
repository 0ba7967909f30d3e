// `node bench/setup-import.mjs <module> [<first>]`: prints the CPU ms (user + system) one `import()` of <module> takes in
// this fresh process, after <first> is imported untimed (the runner, which a test file's worker has loaded already).
// CPU time rather than wall time: on a loaded machine it moves less.
if (process.argv[3]) await import(process.argv[3])
const c0 = process.cpuUsage()
await import(process.argv[2])
const c = process.cpuUsage(c0)
process.stdout.write(((c.user + c.system) / 1000).toFixed(2))
