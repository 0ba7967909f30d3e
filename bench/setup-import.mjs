// Prints the CPU ms (user + system, every thread of this process) one `import()` of the given module takes in this
// fresh process (see setup-import-hooks.mjs). CPU time rather than wall time: on a loaded machine it moves less.
const c0 = process.cpuUsage()
await import(process.argv[2])
const c = process.cpuUsage(c0)
process.stdout.write(((c.user + c.system) / 1000).toFixed(2))
