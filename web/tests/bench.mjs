// The web application's targets, measured in Debian's headless Chromium
// against a running Quire (`QUIRE_URL`, signed in through `QUIRE_LINK`, a
// CLI sign-in link). It makes what it measures through the API: a space of
// 10,000 pages and a page of 10,000 words. Prints one line per figure.
//
//   node tests/bench.mjs            (see web/README.md for the whole command)
//
// - first visit: bytes of JavaScript and CSS over the wire (compressed), and
//   the time from navigation to the page shown with its Edit button usable,
//   without cache;
// - a 10,000-word page: navigation to the editor holding the whole page and
//   editable; keystroke to the frame that paints it (keydown to the next
//   animation frame), and keydown to the editor's work done, p50 and p95
//   over 200 keystrokes;
// - a tree of 10,000 pages: navigation to the tree drawn;
// - autosave: the save request's round trip, p50 and p95 over 50 saves.
import { call, launch } from './browser.mjs';

const url = process.env.QUIRE_URL;
const browser = await launch();
const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
const page = await context.newPage();
await page.goto(process.env.QUIRE_LINK);
await page.getByRole('button', { name: 'Continue' }).click();
await page.getByRole('heading', { name: 'Organizations' }).waitFor();

/// Calls the API from the signed-in page; the answer's JSON.
async function api(method, path, body) {
  const answer = await call(page, method, path, body);
  if (answer.status >= 400) throw new Error(`${method} ${path}: ${answer.status} ${answer.body}`);
  return answer.body ? JSON.parse(answer.body) : null;
}

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const ms = (v) => `${v.toFixed(1)} ms`;

const org = await api('POST', '/v1/orgs', { title: 'Bench' });

// A 10,000-word page (paragraphs under headings), in a space of its own.
const words = 'the quick brown fox jumps over a lazy dog while writers review docs'.split(' ');
let markdown = '';
let count = 0;
for (let section = 0; count < 10000; section += 1) {
  markdown += `## Section ${section}\n\n`;
  for (let p = 0; p < 5 && count < 10000; p += 1) {
    const paragraph = Array.from({ length: 40 }, (_, i) => words[(count + i) % words.length]).join(' ');
    count += 40;
    markdown += `${paragraph}.\n\n`;
  }
}
const long = await api('POST', `/v1/orgs/${org.id}/spaces`, { title: 'Long page' });
let cr = await api('POST', `/v1/spaces/${long.id}/change-requests`, { subject: 'Long page' });
await api('POST', `/v1/spaces/${long.id}/change-requests/${cr.id}/content`, {
  changes: [{ operation: 'insert_page', title: 'Ten thousand words', document: { markdown } }],
});
await api('POST', `/v1/spaces/${long.id}/change-requests/${cr.id}/merge`);

// A space of 10,000 pages: 100 chapters of 99 pages each (batches of 50).
const big = await api('POST', `/v1/orgs/${org.id}/spaces`, { title: 'Ten thousand pages' });
cr = await api('POST', `/v1/spaces/${big.id}/change-requests`, { subject: 'Pages' });
const base = `/v1/spaces/${big.id}/change-requests/${cr.id}/content?compat=false`;
let made = 0;
for (let chapter = 0; made < 10000; chapter += 1) {
  const created = await api('POST', base, {
    changes: [{ operation: 'insert_page', title: `Chapter ${chapter}`, ref: 'chapter', document: { markdown: `Chapter ${chapter}.` } }],
  });
  const parent = created.changes[0].page.id;
  made += 1;
  let inChapter = 0;
  while (inChapter < 99 && made < 10000) {
    const changes = [];
    while (changes.length < 50 && inChapter < 99 && made < 10000) {
      changes.push({ operation: 'insert_page', into: parent, title: `Page ${chapter}.${inChapter}`, document: { markdown: 'Text.' } });
      inChapter += 1;
      made += 1;
    }
    await api('POST', base, { changes });
  }
}
await api('POST', `/v1/spaces/${big.id}/change-requests/${cr.id}/merge`);
console.log(`made: a 10,000-word page (${markdown.length} bytes of markdown) and a space of ${made} pages`);

// First visit without cache: a fresh context, the long page's space.
{
  const state = await context.storageState();
  const fresh = await browser.newContext({ viewport: { width: 1280, height: 800 }, storageState: state });
  const p = await fresh.newPage();
  const started = Date.now();
  await p.goto(`${url}/s/${long.id}/`);
  await p.getByRole('button', { name: 'Edit' }).and(p.locator(':enabled')).waitFor();
  const shown = Date.now() - started;
  const bytes = await p.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .filter((e) => /\.(js|css)$/.test(new URL(e.name).pathname))
      .reduce((sum, e) => sum + e.encodedBodySize, 0),
  );
  console.log(`first visit: ${(bytes / 1024).toFixed(1)} KB of compressed JS and CSS; page shown and editable in ${shown} ms`);
  await fresh.close();
}

/// 200 keys typed into the editor at its 100th paragraph: per key, the
/// time until the editor has applied it and until the frame that paints it.
async function keystrokes(page) {
  await page.locator('.editor-surface .ProseMirror p').nth(100).click();
  // Two clocks per key: until the editor has applied it to the page (its
  // update done, the DOM changed), and until the frame that paints it
  // begins (which also waits for the display's next frame, up to 16.7 ms
  // at 60 Hz).
  await page.evaluate(() => {
    window.workTimes = [];
    window.frameTimes = [];
    let start = 0;
    document.addEventListener(
      'keydown',
      (event) => {
        start = event.timeStamp;
        requestAnimationFrame(() => window.frameTimes.push(performance.now() - event.timeStamp));
      },
      true,
    );
    window.quireEditor.on('update', () => queueMicrotask(() => window.workTimes.push(performance.now() - start)));
  });
  for (let i = 0; i < 200; i += 1) {
    await page.keyboard.type(i % 10 === 9 ? ' ' : 'x');
  }
  return page.evaluate(() => ({ work: window.workTimes, frames: window.frameTimes }));
}

// The 10,000-word page in the editor.
{
  const opened = await api('POST', `/v1/spaces/${long.id}/change-requests`, { subject: 'Edit' });
  const pages = await api('GET', `/v1/spaces/${long.id}/change-requests/${opened.id}/content`);
  const id = pages.pages[0].id;
  const started = Date.now();
  await page.goto(`${url}/s/${long.id}/change-requests/${opened.number}/edit/${id}`);
  await page.locator('.editor-surface .ProseMirror[contenteditable="true"] h2').last().waitFor({ state: 'attached' });
  const editable = Date.now() - started;
  const blocks = await page.locator('.editor-surface .ProseMirror > *').count();
  console.log(`10,000-word page: editable ${editable} ms after navigation (${blocks} blocks)`);
  const timed = await keystrokes(page);
  console.log(`keystroke applied to the page (200 keys): p50 ${ms(quantile(timed.work, 0.5))}, p95 ${ms(quantile(timed.work, 0.95))}`);
  console.log(`keystroke to the frame that paints it: p50 ${ms(quantile(timed.frames, 0.5))}, p95 ${ms(quantile(timed.frames, 0.95))}`);
  // The same with Chromium's 60 Hz frame clock lifted: the page's own
  // latency, without the wait for the display's next frame.
  const fast = await launch({ unthrottled: true });
  const fastPage = await (await fast.newContext({ viewport: { width: 1280, height: 800 }, storageState: await context.storageState() })).newPage();
  await fastPage.goto(page.url());
  await fastPage.locator('.editor-surface .ProseMirror[contenteditable="true"] h2').last().waitFor({ state: 'attached' });
  const unthrottled = await keystrokes(fastPage);
  console.log(`keystroke to the frame that paints it, frame clock lifted: p50 ${ms(quantile(unthrottled.frames, 0.5))}, p95 ${ms(quantile(unthrottled.frames, 0.95))}`);
  await fast.close();
}

// The tree of 10,000 pages.
{
  const started = Date.now();
  await page.goto(`${url}/s/${big.id}/`);
  await page.locator('.tree li').first().waitFor();
  const drawn = Date.now() - started;
  const height = await page.locator('.tree ul').evaluate((el) => el.style.height);
  console.log(`tree of ${made} pages: drawn ${drawn} ms after navigation (list height ${height}, rows drawn ${await page.locator('.tree li').count()})`);
}

// Autosave round trips: the same request the editor sends, 50 times.
{
  const opened = await api('POST', `/v1/spaces/${long.id}/change-requests`, { subject: 'Saves' });
  const pages = await api('GET', `/v1/spaces/${long.id}/change-requests/${opened.id}/content`);
  const id = pages.pages[0].id;
  const small = { object: 'document', data: { schemaVersion: 1 }, nodes: [] };
  const times = await page.evaluate(
    async ({ path, id, small }) => {
      const csrf = (await (await fetch('/auth/session')).json()).csrfToken;
      const out = [];
      for (let i = 0; i < 50; i += 1) {
        small.nodes = [{ object: 'block', type: 'paragraph', isVoid: false, data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: `Edit ${i}`, marks: [] }] }] }];
        const started = performance.now();
        const response = await fetch(path, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf },
          body: JSON.stringify({ changes: [{ operation: 'update_page', page: id, document: { document: small } }] }),
        });
        await response.text();
        out.push(performance.now() - started);
      }
      return out;
    },
    { path: `/v1/spaces/${long.id}/change-requests/${opened.id}/content`, id, small },
  );
  console.log(`autosave round trip (50 saves of a short page): p50 ${ms(quantile(times, 0.5))}, p95 ${ms(quantile(times, 0.95))}`);
}

await browser.close();
