import fs from 'node:fs';
import path from 'node:path';
import { Browser, BrowserContext, Page, chromium } from 'playwright-core';
import { expect } from 'vitest';
import { CHROMIUM } from './system-tools';

/**
 * The admin console in a real browser (Debian's chromium, headless, driven by playwright-core): sign-in through
 * the UI, and the checks every screen gets — axe-core finds no serious or critical accessibility violation, the
 * page is readable at phone width (nothing wider than the screen), and nothing was fetched from another origin.
 * With ADMIN_SCREENSHOTS set to a folder (`npm run docs:screenshots`), each checked screen is saved there as PNG.
 */
export const launchBrowser = (): Promise<Browser> =>
  chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-background-networking'] });

export interface ConsolePage {
  context: BrowserContext;
  page: Page;
  /** Page errors, console errors (CSP refusals among them), and requests to other origins, as they came. */
  problems: string[];
}

/** A page in a context of its own that may reach `origin` only: the console must work offline. */
export async function openConsole(browser: Browser, origin: string, options: { width?: number } = {}): Promise<ConsolePage> {
  const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: 860 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !/status of 4\d\d/.test(msg.text())) problems.push(`console: ${msg.text()}`);
  });
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.origin !== origin && url.protocol !== 'blob:' && url.protocol !== 'data:') {
      problems.push(`offsite: ${url.href}`);
      return route.abort();
    }
    return route.continue();
  });
  return { context, page, problems };
}

/** Signs in through the console's own sign-in button and the built-in login page; waits for "Who am I". */
export async function signInThroughUi(page: Page, url: string, user: { email: string; password: string }, newPassword?: string): Promise<void> {
  await page.goto(`${url}/admin`);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.locator('#email').fill(user.email);
  await page.locator('#password').fill(user.password);
  await page.locator('#login').click();
  if (newPassword) {
    // The first login of an account that must change its password: the identity service asks for a new one.
    await page.locator('#newPassword').fill(newPassword);
    await page.locator('#change-password').click();
  }
  await expect.poll(() => page.getByRole('heading', { level: 1 }).first().textContent(), { timeout: 20_000 }).toBe('Who am I');
}

/** Navigates within the console (a path below /admin) and waits for the page's heading. */
export async function goTo(page: Page, url: string, route: string, heading: string | RegExp): Promise<void> {
  await page.goto(`${url}/admin${route}`);
  await waitForHeading(page, heading);
}

export async function waitForHeading(page: Page, heading: string | RegExp): Promise<void> {
  const h1 = page.getByRole('heading', { level: 1 }).first();
  await expect.poll(async () => (await h1.count()) ? await h1.textContent() : '', { timeout: 20_000 }).toMatch(typeof heading === 'string' ? new RegExp(`^${escape(heading)}$`) : heading);
  await expect.poll(() => page.locator('[aria-busy="true"]').count(), { timeout: 20_000 }).toBe(0);
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's violations of impact serious or critical (WCAG 2.1 A and AA rules), as `rule: target` lines. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's Content-Security-Policy (no inline script) does not apply.
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    // Runs in the page: its globals, typed here as far as this code uses them (the tests have no DOM types).
    const page = globalThis as unknown as {
      document: unknown;
      axe: { run: (context: unknown, options: unknown) => Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] }> };
    };
    const result = await page.axe.run(page.document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}

/** How far the page is wider than a 390 px phone screen (0: it fits, tables scroll inside their own box). */
async function overflowAtPhoneWidth(page: Page): Promise<number> {
  const before = page.viewportSize()!;
  await page.setViewportSize({ width: 390, height: 844 });
  const overflow = await page.evaluate(() => {
    const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });
  await page.setViewportSize(before);
  return overflow;
}

/**
 * The checks of one screen: no serious or critical axe violation, readable at phone width, and (with
 * ADMIN_SCREENSHOTS) its screenshot as `{name}.png`.
 */
export async function checkScreen(page: Page, name: string): Promise<void> {
  expect(await seriousViolations(page), `accessibility of ${name}`).toEqual([]);
  expect(await overflowAtPhoneWidth(page), `${name} at phone width`).toBeLessThanOrEqual(0);
  const folder = process.env.ADMIN_SCREENSHOTS;
  if (folder) {
    fs.mkdirSync(folder, { recursive: true });
    await page.screenshot({ path: path.join(folder, `${name}.png`), fullPage: true });
  }
}
