// The app's own geography API (a service of the app, not the model provider), and the tool that reads it.
export const GEO_API = 'https://geo.app.test/capital'

export async function capitalFromApp(country: string): Promise<string> {
  const res = await fetch(`${GEO_API}?country=${encodeURIComponent(country)}`)
  if (!res.ok) throw new Error(`geo API answered ${res.status}`)
  return ((await res.json()) as { capital: string }).capital
}
