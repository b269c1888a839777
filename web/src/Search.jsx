// Search from the keyboard (Ctrl/Cmd-K): every organization's spaces, with
// the matching sections of each page.
import { useEffect, useRef, useState } from 'preact/hooks';
import { all, get } from './api.js';
import { navigate } from './router.js';
import { listKeys } from './listbox.js';

export function SearchDialog({ open, onClose }) {
  const [query, setQuery] = useState('');
  const [results, setResults] = useState([]);
  const [index, setIndex] = useState(0);
  const input = useRef(null);
  const orgs = useRef(null);

  useEffect(() => {
    if (open) {
      input.current?.focus();
      if (!orgs.current) all('/v1/orgs').then((o) => (orgs.current = o));
    }
  }, [open]);

  useEffect(() => {
    if (!query.trim()) {
      setResults([]);
      return undefined;
    }
    const timer = setTimeout(async () => {
      const list = orgs.current ?? (orgs.current = await all('/v1/orgs'));
      const answers = await Promise.all(
        list.map((org) => get(`/v1/orgs/${org.id}/search?query=${encodeURIComponent(query)}`).catch(() => ({ items: [] }))),
      );
      const rows = [];
      for (const answer of answers) {
        for (const space of answer.items ?? []) {
          for (const page of space.pages ?? []) {
            rows.push({ id: page.id, title: page.title, space: space.title, url: page.urls.app, sections: page.sections ?? [] });
          }
        }
      }
      setResults(rows.slice(0, 20));
      setIndex(0);
    }, 120);
    return () => clearTimeout(timer);
  }, [query]);

  if (!open) return null;
  const go = (url) => {
    onClose();
    const target = new URL(url, window.location.href);
    navigate(target.pathname + target.hash);
  };
  const onKeyDown = (event) =>
    listKeys(event, { items: results, index, setIndex, onChoose: (r) => go(r.url), onClose });
  return (
    <div class="overlay" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div class="dialog" role="dialog" aria-modal="true" aria-label="Search">
        <input
          ref={input}
          type="search"
          class="search-input"
          placeholder="Search pages…"
          aria-label="Search pages"
          aria-controls="search-results"
          value={query}
          onInput={(e) => setQuery(e.currentTarget.value)}
          onKeyDown={onKeyDown}
        />
        <ul id="search-results" role="listbox" aria-label="Results" class="results">
          {results.map((r, i) => (
            <li role="option" aria-selected={i === index} class={i === index ? 'selected' : ''} onClick={() => go(r.url)}>
              <strong>{r.title}</strong> <span class="muted">{r.space}</span>
              {r.sections.slice(0, 2).map((s) => (
                <div class="section-hit">{s.title}{s.body ? ` — ${s.body.slice(0, 100)}` : ''}</div>
              ))}
            </li>
          ))}
        </ul>
        {query && results.length === 0 && <p class="muted" role="status">No page matches.</p>}
      </div>
    </div>
  );
}
