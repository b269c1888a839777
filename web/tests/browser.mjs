// What the browser scripts share: Debian's Chromium, and calling the API
// as the page's signed-in person (with the session's CSRF token).
import { chromium } from 'playwright-core';

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
export async function saveThroughEditor(page, url, space, number, pageId) {
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
    await page.evaluate(() => window.quireEditor.commands.focus('start'));
    await page.waitForFunction(() => document.activeElement?.classList.contains('ProseMirror'));
  }
  await page.keyboard.type('x');
  await page.keyboard.press('Backspace');
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
