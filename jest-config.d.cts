// Types of `fluxlab/jest-config` (jest-config.cjs), for a jest.config.ts.
/**
 * Merge fluxlab into a jest config that already has its own preset, transforms, reporters or setup files,
 * keeping all of them. `options` are fluxlab's options for the workers (`scenarios`, `dir`, …).
 */
export declare function withFluxlab<C extends Record<string, any>>(config?: C, options?: Record<string, unknown>): C & Record<string, any>
