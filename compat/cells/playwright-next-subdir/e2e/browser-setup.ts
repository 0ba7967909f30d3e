// This machine has no browser installed and no way to download Playwright's: the one `@sparticuz/chromium` ships inside
// its npm package is unpacked once here, before the workers start; they read its path and arguments in the config's `use`.
import chromium from '@sparticuz/chromium'

export default async function browserSetup(): Promise<void> {
  process.env.COMPAT_CHROMIUM = await chromium.executablePath()
  process.env.COMPAT_CHROMIUM_ARGS = JSON.stringify(chromium.args.filter((a) => a !== '--single-process'))
}
