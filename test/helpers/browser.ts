/**
 * Debian's chromium driven by playwright-core (its own browser download is not reachable here),
 * for the web app's end-to-end tests. Each context is a fresh profile (no cookie, no storage);
 * console errors, page errors and CSP violations are collected so a test can insist on none.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/lib/chromium/chromium';
/** Screenshots for a reviewer (git-ignored). */
export const SCREENSHOTS = join(process.cwd(), 'test-output', 'web');

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  /** Console errors and warnings, uncaught page errors, dialogs opened (an alert() would be XSS). */
  problems: string[];
  screenshot(name: string): Promise<string>;
}

export async function freshPage(browser: Browser): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  return {
    context,
    page,
    problems,
    async screenshot(name) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      const path = join(SCREENSHOTS, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
  };
}

/**
 * Pixels of the given colours on the canvases inside `selector`: proof that a chart drew
 * something of that colour, not just that a canvas exists.
 */
export async function paintedPixels(page: Page, selector: string, colors: readonly string[]): Promise<Record<string, number>> {
  return page.evaluate(
    ({ selector, colors }) => {
      const rgb = colors.map((c) => [parseInt(c.slice(1, 3), 16), parseInt(c.slice(3, 5), 16), parseInt(c.slice(5, 7), 16)] as const);
      const counts: Record<string, number> = Object.fromEntries(colors.map((c) => [c, 0]));
      for (const canvas of document.querySelectorAll<HTMLCanvasElement>(`${selector} canvas`)) {
        const ctx = canvas.getContext('2d');
        if (!ctx || !canvas.width || !canvas.height) continue;
        const data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
        for (let i = 0; i < data.length; i += 4) {
          rgb.forEach(([r, g, b], k) => {
            if (Math.abs(data[i]! - r) < 8 && Math.abs(data[i + 1]! - g) < 8 && Math.abs(data[i + 2]! - b) < 8) counts[colors[k]!]!++;
          });
        }
      }
      return counts;
    },
    { selector, colors },
  );
}
