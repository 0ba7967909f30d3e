// Next.js runs this once when the server starts, before any route: the app's own way to its model vendor.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME === 'nodejs') await import('./lib/route-vendor')
}
