// Prints the ms one `import()` of the given module takes in this fresh process (see setup-import-hooks.mjs).
const t0 = performance.now()
await import(process.argv[2])
process.stdout.write((performance.now() - t0).toFixed(2))
