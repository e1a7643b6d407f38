import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (`.ci/run` installs it); a test tool's own browser download cannot reach its host here. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const chromiumAvailable = existsSync(chromiumPath);
if (!chromiumAvailable && process.env.CI) throw new Error(`${chromiumPath} is missing: .ci/run installs Debian's chromium for the browser tests`);

/** Headless, with nothing of Chromium's own reaching the network (updates, sync, QUIC). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
