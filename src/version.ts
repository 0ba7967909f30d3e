/** This package's version, written into every fixture manifest (a test keeps it equal to package.json). */
export const VERSION = '0.1.0'
