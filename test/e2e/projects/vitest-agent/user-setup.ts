// The project's own setup file: must keep running next to the one the fluxlab plugin adds.
;(globalThis as { userSetupRan?: boolean }).userSetupRan = true
