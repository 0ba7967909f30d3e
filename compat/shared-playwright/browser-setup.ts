// This machine has no browser installed and no way to download Playwright's: the one `@sparticuz/chromium` ships inside
// its npm package is unpacked once here, before the workers start (each worker launches it: tests/fixtures.ts).
import chromium from '@sparticuz/chromium'

export default async function browserSetup(): Promise<void> {
  process.env.COMPAT_CHROMIUM = await chromium.executablePath()
}
