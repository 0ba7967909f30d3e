// A file that never uses fluxlab: loading fluxlab's setup must not break it.
test('runs with fluxlab loaded', () => {
  expect([1, 2, 3].map((n) => n * 2)).toEqual([2, 4, 6])
})
