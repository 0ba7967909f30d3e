// A jest test sequencer for the e2e tests: test files in reverse path order, whatever jest's cache holds, so a
// run's order is known (test/e2e/one-process.test.ts: the integration file after the unit files). It keeps no
// timings, so it needs nothing of @jest/test-sequencer.
class ReversePathSequencer {
  sort(tests) {
    return [...tests].sort((a, b) => (a.path < b.path ? 1 : a.path > b.path ? -1 : 0))
  }

  allFailedTests(tests) {
    return tests
  }

  cacheResults() {}
}

module.exports = ReversePathSequencer
