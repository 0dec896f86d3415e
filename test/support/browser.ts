/**
 * Debian's chromium (installed by test/support/browser-setup.ts) driven by playwright-core:
 * headless, no network of its own, a fresh profile per browser, and screenshots kept under
 * .cache/test-artifacts/ (git-ignored) with their path printed.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../scripts/hub/chromium.mjs';

/** A browser with one page. */
export interface TestBrowser {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Errors the page threw or logged. */
  readonly pageErrors: string[];
  close(): Promise<void>;
}

/** Starts chromium with a fresh profile and opens a page of `width`×`height`. */
export async function openBrowser(
  options: { readonly width?: number; readonly height?: number } = {},
): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'siteforge-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS],
    viewport: { width: options.width ?? 1440, height: options.height ?? 1000 },
    timeout: 60_000,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
  return {
    context,
    page,
    pageErrors,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Where screenshots go: `.cache/test-artifacts/dashboard/` in the repository. */
export function artifactPath(name: string): string {
  const dir = join(import.meta.dirname, '..', '..', '.cache', 'test-artifacts', 'dashboard');
  mkdirSync(dir, { recursive: true });
  return join(dir, name);
}

/** Saves a screenshot (the full page unless told) and prints where. */
export async function screenshot(
  page: Page,
  name: string,
  options: { readonly fullPage?: boolean } = {},
): Promise<string> {
  const path = artifactPath(name);
  await page.screenshot({ path, fullPage: options.fullPage ?? true });
  console.log(`dashboard screenshot: ${path}`);
  return path;
}

/** The attribute `name` of every element `locator` matches, in document order. */
export async function attributes(locator: Locator, name: string): Promise<(string | null)[]> {
  return Promise.all((await locator.all()).map((element) => element.getAttribute(name)));
}
