/**
 * The dashboard page in a real browser (Debian's chromium through playwright-core) on a fleet
 * of 3,500 synthetic sites: what an operator sees (totals, waves, the sites that need attention
 * with their exact message, one site's timeline), that it stays usable at that size (paged, one
 * timeline at a time), that it follows changes live, and that the server is read-only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get as httpGet } from 'node:http';
import { join } from 'node:path';
import { DashboardServer } from '../../src/dashboard/dashboard-server.js';
import { FleetFeed } from '../../src/dashboard/fleet-feed.js';
import { systemRuntimeClock } from '../../src/bmac/runtime/runtime-clock.js';
import { createLogger } from '../../src/shared/logger.js';
import { SITE_STATES } from '../../src/fleet/index.js';
import { attributes, openBrowser, screenshot } from '../support/browser.js';
import type { TestBrowser } from '../support/browser.js';
import { plannedState, syntheticRollout, syntheticSite } from '../support/dashboard-fleet.js';
import type { SiteScript } from '../support/fleet-objects.js';

const COUNT = 3500;
const assetsDir = join(import.meta.dirname, '..', '..', 'build', 'dashboard');
let feed: FleetFeed;
let server: DashboardServer;
let url: string;
let browser: TestBrowser;
const sites: SiteScript[] = [];

beforeAll(async () => {
  feed = new FleetFeed({ clock: systemRuntimeClock, intervalMs: 100 });
  for (let i = 0; i < COUNT; i++) {
    const site = syntheticSite(i);
    sites.push(site);
    for (const object of site.objects()) feed.apply({ type: 'add', object });
  }
  feed.apply({ type: 'add', object: syntheticRollout(COUNT) });
  server = new DashboardServer({ feed, log: createLogger({ level: 'silent' }), assetsDir });
  url = await server.listen();
  browser = await openBrowser();
}, 120_000);

afterAll(async () => {
  await browser.close();
  await server.close();
  feed.close();
});

/** The status of GET / with this Host header (fetch does not let a page set it). */
function statusWithHost(base: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpGet(`${base}/api/fleet`, { headers: { host } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', reject);
  });
}

function expectedCounts(): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(SITE_STATES.map((s) => [s, 0]));
  for (let i = 0; i < COUNT; i++) {
    const planned = plannedState(i);
    counts[planned === 'bmc-error' ? 'pending' : planned]! += 1;
  }
  return counts;
}

describe('the dashboard on a fleet of 3,500 sites', () => {
  it('shows the totals by state', async () => {
    const { page } = browser;
    await page.goto(url);
    await page.getByTestId('connection').and(page.locator('[data-connection="live"]')).waitFor();
    await expect.poll(() => page.getByTestId('total-sites').textContent()).toBe('3,500');
    const expected = expectedCounts();
    for (const state of SITE_STATES)
      expect(await page.getByTestId(`total-${state}`).getAttribute('data-count'), state).toBe(
        String(expected[state]),
      );
    expect(await page.getByTestId('syncing').count()).toBe(0);
    await screenshot(page, 'fleet-3500.png');
    expect(browser.pageErrors).toEqual([]);
  });

  it('pages the site list: 50 rows at a time, never the whole fleet in the DOM', async () => {
    const { page } = browser;
    expect(await page.getByTestId('site-row').count()).toBe(50);
    expect(await page.getByTestId('sites-count').textContent()).toBe('1–50 of 3,500');
    expect(await page.locator('[data-testid="timeline"]').count()).toBe(0);
    expect(await page.locator('tr, li').count()).toBeLessThan(200);
    await page.getByTestId('search').fill('sno-34');
    await expect.poll(() => page.getByTestId('sites-count').textContent()).toBe('1–50 of 100');
    await page.getByTestId('search').fill('');
    await page.getByTestId('total-failed').click();
    const failed = expectedCounts()['failed']!;
    await expect
      .poll(() => page.getByTestId('sites-count').textContent())
      .toBe(`1–${String(Math.min(50, failed))} of ${String(failed)}`);
    const states = await attributes(page.getByTestId('site-row'), 'data-state');
    expect(new Set(states)).toEqual(new Set(['failed']));
    await page.getByTestId('total-failed').click();
  });

  it('groups the sites that need attention by problem, each with its exact message and a hint', async () => {
    const { page } = browser;
    const expected = expectedCounts();
    const group = page.getByTestId('problem-group').first();
    expect(await group.getAttribute('data-reason')).toBe('InstallationFailed');
    expect(await group.locator('.group-count').textContent()).toBe(
      `${String(expected['failed'])} sites`,
    );
    expect(await group.locator('.hint').first().textContent()).toMatch(/boot order/);
    const first = group.getByTestId('attention').first();
    expect(plannedState(Number((await first.getAttribute('data-site'))?.slice(4)))).toBe('failed');
    expect(await first.getByTestId('problem-message').textContent()).toBe(
      'The installation has failed: Host failed to install because its installation stage Rebooting took longer than expected 40m0s',
    );
    const reasons = await attributes(page.getByTestId('problem-group'), 'data-reason');
    expect(reasons).toEqual([
      'InstallationFailed',
      'ValidationsFailing',
      'registration error',
      'AgentIsNotApproved',
    ]);
    // Every site of a group is one click away, in the paged list.
    await group.locator('button.more').click();
    await expect
      .poll(() => page.getByTestId('sites-count').textContent())
      .toBe(`1–50 of ${String(expected['failed'])}`);
    await page.getByTestId('problem-filter').click();
    await expect.poll(() => page.getByTestId('sites-count').textContent()).toBe('1–50 of 3,500');
  });

  it('shows one site at a time: its timeline with install stages, and its problem', async () => {
    const { page } = browser;
    const failed = page.getByTestId('problem-group').first().getByTestId('attention').first();
    const name = (await failed.getAttribute('data-site')) ?? '';
    await failed.locator('button.link').click();
    const drawer = page.getByTestId('drawer');
    await expect.poll(() => drawer.getByTestId('drawer-title').textContent()).toBe(name);
    await drawer.getByTestId('timeline').waitFor();
    expect(await page.locator('[data-testid="timeline"]').count()).toBe(1);
    const steps = await drawer.locator('.step').all();
    expect(
      await Promise.all(
        steps.map(async (e) => [
          await e.getAttribute('data-step'),
          await e.getAttribute('data-status'),
        ]),
      ),
    ).toEqual([
      ['image', 'done'],
      ['bmc-boot', 'done'],
      ['discovery', 'done'],
      ['validations', 'done'],
      ['install', 'failed'],
      ['done', 'failed'],
    ]);
    expect(await drawer.locator('.stage.t-failed .stage-name').textContent()).toBe('Rebooting');
    expect(await drawer.getByTestId('drawer-problem').textContent()).toContain(
      'took longer than expected 40m0s',
    );
    await screenshot(page, 'site-failed.png', { fullPage: false });
    await page.keyboard.press('Escape');
    await page.getByTestId('drawer').waitFor({ state: 'detached' });
  });

  it('groups the sites by rollout wave, with the wave phase and sites in no wave', async () => {
    const { page } = browser;
    const waves = await Promise.all(
      (await page.getByTestId('wave').all()).map(async (row) => [
        await row.getAttribute('data-wave'),
        await row.getByTestId('wave-count').textContent(),
      ]),
    );
    const installedIn = (from: number, to: number): number =>
      Array.from({ length: to - from }, (_, k) => from + k).filter(
        (i) => plannedState(i) === 'installed',
      ).length;
    expect(waves).toEqual([
      ['canary', `${String(installedIn(0, 10))}/10`],
      ['wave-1', `${String(installedIn(10, 1400))}/1,390`],
      ['wave-2', `${String(installedIn(1400, 3150))}/1,750`],
      ['no wave', `${String(installedIn(3150, 3500))}/350`],
    ]);
    expect(await page.locator('.phase').allTextContents()).toEqual([
      'Passed',
      'Progressing',
      'Pending',
    ]);
  });

  it('follows changes live: a booting site that registers moves without a reload', async () => {
    const { page } = browser;
    const index = sites.findIndex((_, i) => plannedState(i) === 'booting');
    const site = sites[index]!;
    await page.getByTestId('search').fill(site.name);
    const row = page.locator(`[data-testid="site-row"][data-site="${site.name}"]`);
    await expect.poll(() => row.getAttribute('data-state')).toBe('booting');
    const booting = Number(await page.getByTestId('total-booting').getAttribute('data-count'));
    site.wait(60).bmhState('provisioned').wait(60).register();
    for (const object of site.objects()) feed.apply({ type: 'update', object });
    await expect
      .poll(() => row.getAttribute('data-state'), { timeout: 10_000 })
      .toBe('discovering');
    expect(Number(await page.getByTestId('total-booting').getAttribute('data-count'))).toBe(
      booting - 1,
    );
    await page.getByTestId('search').fill('');
  });

  it('says when its counts are partial, while the controller still lists the hub', async () => {
    const { page } = browser;
    feed.setSynced(false);
    await page.getByTestId('syncing').waitFor({ timeout: 10_000 });
    feed.setSynced(true);
    await page.getByTestId('syncing').waitFor({ state: 'detached', timeout: 10_000 });
  });

  it('is read-only, sends no secrets, and loads nothing from elsewhere', async () => {
    // Objects carry signed URLs and name Secrets; none of it may reach a response.
    const site = sites[1]!;
    const agent = site.agent()!;
    const status = agent['status'] as Record<string, unknown>;
    feed.apply({
      type: 'update',
      object: {
        ...agent,
        status: {
          ...status,
          debugInfo: {
            ...(status['debugInfo'] as object),
            eventsURL: 'https://hub/api/assisted-install/v2/events?api_key=planted-agent-token',
          },
        },
      },
    });
    feed.apply({
      type: 'update',
      object: {
        ...site.bareMetalHost(),
        spec: {
          ...(site.bareMetalHost()['spec'] as object),
          bmc: { address: 'redfish://10.0.0.1/x', credentialsName: 'planted-bmc-secret' },
        },
      },
    });
    const fleet = await (await fetch(`${url}/api/fleet`)).text();
    const detail = await (await fetch(`${url}/api/sites/${site.name}/${site.name}`)).text();
    for (const text of [fleet, detail]) {
      expect(text.includes('planted-')).toBe(false);
      expect(text.includes('isoDownloadURL')).toBe(false);
      expect(text.includes('api_key')).toBe(false);
    }
    expect(JSON.parse(detail)).toMatchObject({ status: { name: site.name } });
    const post = await fetch(`${url}/api/fleet`, { method: 'POST' });
    expect(post.status).toBe(405);
    const page = await fetch(url);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\//);
    expect((await fetch(`${url}/api/sites/..%2f..%2fetc/passwd`)).status).toBe(404);
    expect((await fetch(`${url}/app.js/../../package.json`)).status).toBe(404);
    // A name that resolves to this machine is not enough (DNS rebinding): only its own names.
    expect(await statusWithHost(url, 'attacker.example:8084')).toBe(403);
    expect(await statusWithHost(url, `localhost:${new URL(url).port}`)).toBe(200);
    expect(browser.pageErrors).toEqual([]);
  });
});
