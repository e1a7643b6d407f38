import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's Chromium (`.ci/run` installs it); a test tool's own browser download cannot reach its host
 * here. Its headless shell (Debian's `chromium-headless-shell`, the same Blink and V8 without the
 * browser's own UI, what Playwright itself runs headless) when installed: it draws the same pages
 * for much less CPU than the full browser in headless mode (bench/RESULTS.md). `CHROMIUM_PATH` picks another.
 */
const debianBrowsers = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'];
export const chromiumPath = process.env.CHROMIUM_PATH ?? debianBrowsers.find((file) => existsSync(file)) ?? debianBrowsers.at(-1)!;
export const chromiumAvailable = existsSync(chromiumPath);
if (!chromiumAvailable && process.env.CI) throw new Error(`${chromiumPath} is missing: .ci/run installs Debian's chromium for the browser tests`);

/** Headless, with nothing of Chromium's own reaching the network (updates, sync, QUIC). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
