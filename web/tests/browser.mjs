// What the browser scripts share: Debian's Chromium, and calling the API
// as the page's signed-in person (with the session's CSRF token).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/// Chromium, headless. `unthrottled` lifts the 60 Hz frame clock (frames
/// are made as soon as something changed), so a benchmark can tell the
/// page's own latency from the wait for the display's next frame.
export function launch({ unthrottled = false } = {}) {
  const frames = unthrottled ? ['--disable-frame-rate-limit', '--disable-gpu-vsync'] : [];
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...frames],
  });
}

/// `method path` with `body` from the page: `{ status, body }` (the body's text).
export async function call(page, method, path, body) {
  return page.evaluate(
    async ({ method, path, body }) => {
      const csrf = (await (await fetch('/auth/session')).json()).csrfToken;
      const response = await fetch(path, {
        method,
        headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: response.status, body: await response.text() };
    },
    { method, path, body },
  );
}

/// Opens a page of a change request in the editor and saves it as a writer
/// would (a key typed and taken back), so the editor writes what it holds;
/// whether it opened as markdown (pages with blocks the rich editor does
/// not hold whole).
/// With `words`, those are typed there and kept (an edit of the first
/// line of text) instead of a letter typed and taken back.
export async function saveThroughEditor(page, url, space, number, pageId, words) {
  await page.goto(`${url}/s/${space}/change-requests/${number}/edit/${pageId}`);
  await page.getByLabel('Page title').waitFor();
  const source = page.getByRole('textbox', { name: 'Page markdown' });
  const asMarkdown = (await source.count()) > 0;
  if (asMarkdown) {
    await source.focus();
    await page.keyboard.press('Control+End');
  } else {
    // The shared document is ready once it reads saved, and editable
    // once the editor says so.
    await page.locator('.save-state[data-state="saved"]').waitFor();
    await page.locator('.editor-surface .ProseMirror[contenteditable="true"]').waitFor();
    // Into the first line of text (a page may begin with a block without
    // text, which typing would replace).
    await page.evaluate(() => {
      const editor = window.quireEditor;
      let at = null;
      editor.state.doc.descendants((node, pos) => {
        if (at === null && node.isTextblock && node.type.spec.code !== true) at = pos + 1;
        return at === null;
      });
      editor.commands.focus(at ?? 'end');
    });
    await page.waitForFunction(() => document.activeElement?.classList.contains('ProseMirror'));
  }
  if (words) {
    await page.keyboard.type(words);
  } else {
    await page.keyboard.type('x');
    await page.keyboard.press('Backspace');
  }
  if (!asMarkdown) await page.locator('.save-state[data-state="saving"]').waitFor();
  await page.locator('.save-state[data-state="saved"]').waitFor();
  return asMarkdown;
}

/// Runs a named step of a browser script: prints `ok   name`, or
/// `FAIL name` with screenshots of `pages()` into `artifacts` and the error.
export function stepper(artifacts, pages) {
  return async function step(name, run) {
    try {
      await run();
      console.log(`ok   ${name}`);
    } catch (error) {
      console.error(`FAIL ${name}`);
      for (const [i, page] of pages().entries()) {
        const file = i === 0 ? 'failure.png' : `failure-${i}.png`;
        await page?.screenshot({ path: `${artifacts}/${file}`, fullPage: true }).catch(() => {});
      }
      throw error;
    }
  };
}

/// A screen checked and kept: axe-core finds no serious or critical
/// violation, and it is photographed into `artifacts` at desktop width
/// (light) and phone width (dark).
export async function screen(page, name, artifacts) {
  await page.addScriptTag({ content: AXE });
  const result = await page.evaluate(async () => window.axe.run(document, { resultTypes: ['violations'] }));
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`), [], name);
  await page.screenshot({ path: `${artifacts}/${name}-desktop.png`, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: `${artifacts}/${name}-phone-dark.png`, fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: 'light' });
}

/// A new page in a fresh browser context (its own cookies) of `browser`,
/// added to `pages` (what a failing step photographs); page errors are
/// printed.
export async function newPage(browser, pages, options = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true, ...options });
  const page = await context.newPage();
  page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
  pages.push(page);
  return page;
}
