/**
 * Headless Chromium for the browser tests: Debian's `chromium` (or the one `CHROMIUM` names),
 * driven by playwright-core, which brings no browser of its own. One browser per test file.
 */
import { accessSync, constants } from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";

/** The Chromium executable: `$CHROMIUM`, else the first `chromium` or `chromium-browser` on PATH; null when there is none. */
export function chromiumPath(): string | null {
  const candidates = process.env.CHROMIUM ? [process.env.CHROMIUM] : (process.env.PATH ?? "").split(path.delimiter).flatMap((dir) => (dir === "" ? [] : [path.join(dir, "chromium"), path.join(dir, "chromium-browser")]));
  for (const file of candidates) {
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not this one
    }
  }
  return null;
}

/** Why the browser tests cannot run here, or null when they can. */
export function browserMissing(): string | null {
  return chromiumPath() === null ? "Chromium is not installed: apt-get install -y chromium (or set CHROMIUM to its executable) to run the browser tests" : null;
}

/**
 * Starts headless Chromium. Note: as root Chromium's sandbox cannot start, so it runs without
 * one there; the pages it opens are the tests' own.
 */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (executablePath === null) throw new Error(browserMissing()!);
  const { chromium } = await import("playwright-core");
  const root = typeof process.getuid === "function" && process.getuid() === 0;
  return chromium.launch({ executablePath, headless: true, args: root ? ["--no-sandbox"] : [] });
}
