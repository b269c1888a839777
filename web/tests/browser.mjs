// What the browser scripts share: Debian's Chromium, and calling the API
// as the page's signed-in person (with the session's CSRF token).
import { chromium } from 'playwright-core';

export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
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
