// Support for the console's browser tests: Debian's Chromium driven by playwright-core (no
// browser download), a berth listening on a loopback port, and the console built once when
// console/dist is missing or older than its sources.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startDeploymentWorkers } from '../../src/workers/handlers.ts';
import { startWebhookWorkers } from '../../src/workers/handlers.ts';
import type { SimulatedSettings } from '../../src/engine/index.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';

const CHROMIUM = '/usr/bin/chromium';
const root = new URL('../..', import.meta.url).pathname;
const dist = join(root, 'console/dist/index.html');

/** why the browser tests cannot run here, or null when they can */
export function browserSkipReason(): string | null {
  return existsSync(CHROMIUM) ? null : `${CHROMIUM} is absent: install Debian's chromium (apt-get install chromium) to run the console's browser tests`;
}

function newest(path: string): number {
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(s.mtimeMs, ...readdirSync(path).map((n) => newest(join(path, n))));
}

/** builds the console when its output is missing or older than a source file */
export function ensureConsoleBuilt(): void {
  const sources = Math.max(newest(join(root, 'console/src')), newest(join(root, 'console/index.html')),
    newest(join(root, 'console/vite.config.ts')), newest(join(root, 'src/client/api-types.ts')));
  if (existsSync(dist) && statSync(dist).mtimeMs >= sources) return;
  const r = spawnSync(process.execPath, [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'console/vite.config.ts', '--logLevel', 'warn'], {
    cwd: root, encoding: 'utf8', timeout: 180_000,
  });
  if (r.status !== 0) throw new Error(`console build failed:\n${r.stdout}\n${r.stderr}`);
}

export interface LiveBerth { t: TestApp; base: string; close(): Promise<void> }

/** a real berth on 127.0.0.1 (random port) with the deployment workers running; `simulated`: its engine's settings */
export async function startListeningBerth(env: Record<string, string> = {}, options: { webhooks?: boolean; simulated?: Partial<SimulatedSettings> } = {}): Promise<LiveBerth> {
  const t = await startTestApp({ env, config: options.webhooks ? { webhookAllowPrivateTargets: true } : {}, simulated: options.simulated });
  await startDeploymentWorkers(t.ctx);
  if (options.webhooks) await startWebhookWorkers(t.ctx);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  return { t, base: `http://127.0.0.1:${port}`, close: () => t.close() };
}

export interface Chrome { context: BrowserContext; close(): Promise<void> }

/** Chromium with a fresh profile directory (a persistent context is how playwright takes one) */
export async function launchChromium(): Promise<Chrome> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'berth-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

const shotsDir = join(root, 'docs/console');

/** the screenshots in docs/console are refreshed only when asked: CONSOLE_SCREENSHOTS=1 */
/** a new page of the browser signed in with `token` (the console reads its credential from sessionStorage) */
export async function signedInPage(chrome: Chrome, token: string): Promise<Page> {
  const page = await chrome.context.newPage();
  await page.addInitScript((t) => sessionStorage.setItem('berth.credential', t), token);
  return page;
}

export async function screenshot(page: Page, name: string, fullPage = true): Promise<void> {
  if (!process.env.CONSOLE_SCREENSHOTS) return;
  mkdirSync(shotsDir, { recursive: true });
  await page.screenshot({ path: join(shotsDir, `${name}.png`), fullPage });
}
