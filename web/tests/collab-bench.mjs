// Co-editing benchmark: PEOPLE clients (Yjs over y-websocket, as the
// browser's editor speaks it, without a browser) edit one page of a change
// request at once for SECONDS, spread over the nodes in QUIRE_URLS; one
// observer times how long each edit takes to reach it (same process, same
// clock); at the end every client holds the same document and the page
// the server saved (read through the API) holds every edit. Then PAGES
// more pages are opened with one client each, and the server's resident
// memory (QUIRE_PID's VmRSS) before and after gives the memory per open
// page (QUIRE_PID: the first node's process).
// It makes its space, change request and pages through the API first.
//   QUIRE_URLS=http://a,http://b QUIRE_TOKEN=... QUIRE_PID=...
//   PEOPLE=20 SECONDS=30 PAGES=40 node tests/collab-bench.mjs
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { WebsocketProvider } from 'y-websocket';
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';

// Every client's provider listens for the process's exit.
process.setMaxListeners(0);
const env = process.env;
const urls = env.QUIRE_URLS.split(',');
const people = Number(env.PEOPLE ?? 20);
const seconds = Number(env.SECONDS ?? 30);
const token = env.QUIRE_TOKEN;

async function call(method, path, body) {
  const response = await fetch(`${urls[0]}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

// A space, a change request and its pages, made through the API.
const org = await call('POST', '/v1/orgs', { title: 'Co-editing bench' });
const space = await call('POST', `/v1/orgs/${org.id}/spaces`, { title: 'Shared' });
const cr = await call('POST', `/v1/spaces/${space.id}/change-requests`, { subject: 'Bench' });
const made = await call('POST', `/v1/spaces/${space.id}/change-requests/${cr.id}/content?compat=false`, {
  changes: Array.from({ length: 1 + Number(env.PAGES ?? 40) }, (_, i) => ({
    operation: 'insert_page',
    title: `Page ${i}`,
    document: { markdown: `# Page ${i}\n` },
  })),
});
const pages = made.changes.map((c) => c.page.id);
env.QUIRE_SPACE = space.id;
env.QUIRE_CR = cr.id;

class AuthorizedWebSocket extends WebSocket {
  constructor(url, protocols) {
    super(url, protocols, { headers: { Authorization: `Bearer ${token}` } });
  }
}

const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${env.QUIRE_PID}/status`, 'utf8'))[1]) / 1024;

/// A client of one page; fills the document when the server asks (a
/// heading, as the editor would write a new page) and says when it is
/// ready.
function client(url, page) {
  const doc = new Y.Doc();
  const base = url.replace(/^http/, 'ws');
  const provider = new WebsocketProvider(`${base}/v1/spaces/${env.QUIRE_SPACE}/change-requests/${env.QUIRE_CR}/pages/${page}`, 'collaboration', doc, {
    WebSocketPolyfill: AuthorizedWebSocket,
    disableBc: true,
  });
  const me = { doc, provider, ready: null };
  me.ready = new Promise((resolve) => {
    provider.messageHandlers[102] = (_e, decoder) => {
      const state = JSON.parse(decoding.readVarString(decoder));
      if (state.ready) resolve();
    };
  });
  provider.messageHandlers[100] = (_e, decoder) => {
    const { base: from, target } = JSON.parse(decoding.readVarString(decoder));
    const fragment = doc.getXmlFragment('default');
    if (!from && fragment.length === 0) {
      const heading = new Y.XmlElement('heading');
      heading.setAttribute('level', 1);
      heading.insert(0, [new Y.XmlText('Shared page')]);
      fragment.insert(0, [heading]);
    }
    const out = encoding.createEncoder();
    encoding.writeVarUint(out, 101);
    encoding.writeVarString(out, JSON.stringify({ target }));
    provider.ws.send(encoding.toUint8Array(out));
  };
  return me;
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

const before = rss();
const clients = Array.from({ length: people }, (_, i) => client(urls[i % urls.length], pages[0]));
await Promise.all(clients.map((c) => c.ready));
// Each writes in a paragraph of its own.
const texts = clients.map((c, i) => {
  const paragraph = new Y.XmlElement('paragraph');
  const text = new Y.XmlText(`Person ${i}: `);
  paragraph.insert(0, [text]);
  const fragment = c.doc.getXmlFragment('default');
  c.doc.transact(() => fragment.insert(fragment.length, [paragraph]));
  return text;
});
const observer = clients[clients.length - 1];
const sentAt = new Map();
const latencies = [];
observer.doc.on('update', () => {
  const seen = observer.doc.getXmlFragment('default').toString();
  for (const [word, at] of sentAt) {
    if (seen.includes(word)) {
      latencies.push(Date.now() - at);
      sentAt.delete(word);
    }
  }
});
const words = [];
const started = Date.now();
let n = 0;
while (Date.now() - started < seconds * 1000) {
  // Every person types a word about every 250 ms (four words a second).
  for (let i = 0; i < people - 1; i += 1) {
    const word = ` w${i}x${n}`;
    words.push(word.trim());
    if (i === 0) sentAt.set(word.trim(), Date.now());
    texts[i].insert(texts[i].length, word);
  }
  n += 1;
  await new Promise((r) => setTimeout(r, 250));
}
const typed = Date.now() - started;
// Everyone converges.
const converged = Date.now();
const same = () => {
  const first = clients[0].doc.getXmlFragment('default').toString();
  return clients.every((c) => c.doc.getXmlFragment('default').toString() === first);
};
while (!same()) await new Promise((r) => setTimeout(r, 50));
const convergedIn = Date.now() - converged;
const during = rss();
// The saved page holds every word.
const api = async (path) =>
  (await fetch(`${urls[0]}${path}`, { headers: { Authorization: `Bearer ${token}` } })).json();
let missing = words;
const deadline = Date.now() + 20000;
while (missing.length && Date.now() < deadline) {
  const { markdown } = await api(`/v1/spaces/${env.QUIRE_SPACE}/change-requests/${env.QUIRE_CR}/content/page/${pages[0]}?format=markdown`);
  missing = words.filter((w) => !markdown.includes(w));
  if (missing.length) await new Promise((r) => setTimeout(r, 200));
}
latencies.sort((a, b) => a - b);
console.log(
  `${people} people on ${urls.length} node(s), ${(typed / 1000).toFixed(0)} s, ${words.length} edits: ` +
    `edit to another client p50 ${quantile(latencies, 0.5)} ms, p95 ${quantile(latencies, 0.95)} ms, max ${latencies.at(-1)} ms (${latencies.length} timed); ` +
    `converged ${convergedIn} ms after the last edit; ${missing.length} edits missing from the saved page`,
);
// Memory per open page.
const more = pages.slice(1).map((page, i) => client(urls[i % urls.length], page));
await Promise.all(more.map((c) => c.ready));
for (const c of more) {
  const fragment = c.doc.getXmlFragment('default');
  const paragraph = new Y.XmlElement('paragraph');
  paragraph.insert(0, [new Y.XmlText('An edit.')]);
  fragment.insert(fragment.length, [paragraph]);
}
await new Promise((r) => setTimeout(r, 3000));
const after = rss();
console.log(
  `server resident memory: ${before.toFixed(1)} MiB before, ${during.toFixed(1)} MiB with the shared page open, ` +
    `${after.toFixed(1)} MiB with ${more.length} more pages open: ${(((after - during) * 1024) / Math.max(1, more.length)).toFixed(0)} KiB per open page`,
);
for (const c of [...clients, ...more]) c.provider.destroy();
process.exit(missing.length ? 1 : 0);
