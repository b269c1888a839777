// An organization's translations: each translates a source space into a
// language (a result space, written by a run through the operator's
// translation provider), with progress while a run goes; and the glossary,
// the terms every run translates the same way.
import { useState } from 'preact/hooks';
import { all, del, get, post, put } from '../api.js';
import { Pending, usePolling, useLoad } from './Home.jsx';
import { Frame, useAction } from './Admin.jsx';

/// The languages translations may use (the API's codes), by name.
export const LANGUAGES = {
  en: 'English', fr: 'French', de: 'German', es: 'Spanish', it: 'Italian', pt: 'Portuguese', 'pt-br': 'Portuguese (Brazil)',
  ru: 'Russian', ja: 'Japanese', zh: 'Chinese (simplified)', 'zh-tw': 'Chinese (traditional)', yue: 'Cantonese', ko: 'Korean',
  ar: 'Arabic', hi: 'Hindi', nl: 'Dutch', pl: 'Polish', tr: 'Turkish', sv: 'Swedish', no: 'Norwegian', da: 'Danish',
  fi: 'Finnish', el: 'Greek', cs: 'Czech', hu: 'Hungarian', ro: 'Romanian', th: 'Thai', vi: 'Vietnamese', id: 'Indonesian',
  ms: 'Malay', he: 'Hebrew', uk: 'Ukrainian', sk: 'Slovak', bg: 'Bulgarian', hr: 'Croatian', lt: 'Lithuanian', lv: 'Latvian',
  et: 'Estonian', sl: 'Slovenian',
};

const STATUS = { pending: 'Not run yet', running: 'Translating…', completed: 'Translated' };

function LanguageSelect({ name, label, initial }) {
  return (
    <label>
      {label}
      <select name={name}>
        {Object.entries(LANGUAGES).map(([code, words]) => (
          <option key={code} value={code} selected={code === initial}>{words}</option>
        ))}
      </select>
    </label>
  );
}

export function Translations({ orgId }) {
  const base = `/v1/orgs/${orgId}`;
  const [{ data, error }, reload] = useLoad(async () => {
    const [org, translations, spaces, glossary] = await Promise.all([
      get(base),
      all(`${base}/translations`),
      all(`${base}/spaces`),
      all(`${base}/translations-glossary`),
    ]);
    return { org, translations, spaces, glossary };
  }, [orgId]);
  const [act, feedback] = useAction(reload);
  // Runs asked for here, by translation: how many runs it had then (a
  // queued run shows as `pending` until a worker takes it).
  const [asked, setAsked] = useState({});
  const waiting = (t) => t.status === 'running' || (asked[t.id] !== undefined && t.stats.runs <= asked[t.id]);
  usePolling(data?.translations.some(waiting), reload);
  if (!data) return <Pending error={error} />;
  const titleOf = (id) => data.spaces.find((s) => s.id === id)?.title ?? id;
  const create = (event) => {
    event.preventDefault();
    const form = event.currentTarget.elements;
    act(() => post(`${base}/translations`, {
      language: form.language.value,
      source: { space: form.space.value, language: form.from.value },
    }), 'Translation added: run it to write the translated space.');
  };
  const addTerm = (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const { from, term, to, translated } = form.elements;
    act(async () => {
      await put(`${base}/translations-glossary`, {
        operations: [{ type: 'insert', translations: { [from.value]: term.value, [to.value]: translated.value } }],
      });
      form.reset();
    }, 'Term added to the glossary.');
  };
  return (
    <Frame orgId={orgId} org={data.org} current="translations">
      <h1>Translations</h1>
      {feedback}
      {data.translations.length === 0 ? (
        <p class="muted">No translation yet.</p>
      ) : (
        <table class="grid" aria-label="Translations">
          <thead><tr><th scope="col">Space</th><th scope="col">Into</th><th scope="col">Progress</th><th scope="col">Translated space</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            {data.translations.map((t) => (
              <tr key={t.id}>
                <td>{titleOf(t.source.space)} <span class="muted">({LANGUAGES[t.source.language] ?? t.source.language})</span></td>
                <td>{LANGUAGES[t.language] ?? t.language}</td>
                <td>
                  <span class={`state state-${t.status}`}>{t.status === 'pending' && waiting(t) ? 'Waiting to run…' : STATUS[t.status] ?? t.status}</span>
                  {t.stats.runs > 0 && (
                    <span class="muted">
                      {' '}· {t.stats.latestPages} pages and {t.stats.latestWords} words in the last run ({t.stats.latestRunDuration} s); {t.stats.runs} {t.stats.runs === 1 ? 'run' : 'runs'}
                    </span>
                  )}
                </td>
                <td>{t.result ? <a href={`/s/${t.result.space}/`}>{titleOf(t.result.space)}</a> : <span class="muted">None yet</span>}</td>
                <td>
                  <button type="button" class="primary" disabled={waiting(t)}
                    onClick={() => act(async () => {
                      await post(`${base}/translations/${t.id}/run`);
                      setAsked({ ...asked, [t.id]: t.stats.runs });
                    }, 'Translation started.')}>
                    Run {LANGUAGES[t.language] ?? t.language}
                  </button>{' '}
                  <button type="button" onClick={() => act(() => del(`${base}/translations/${t.id}`), 'Translation removed.')}>Remove</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form class="inline-form" onSubmit={create}>
        <label>Space to translate<select name="space">{data.spaces.map((s) => <option key={s.id} value={s.id}>{s.title}</option>)}</select></label>
        <LanguageSelect name="from" label="Written in" initial="en" />
        <LanguageSelect name="language" label="Translate into" initial="fr" />
        <button type="submit">Add translation</button>
      </form>
      <h2>Glossary</h2>
      <p class="muted">Terms every run translates this way (product names, words of your trade).</p>
      <table class="grid" aria-label="Glossary">
        <thead><tr><th scope="col">Term</th><th scope="col">Translations</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody>
          {data.glossary.map((entry) => {
            const [first, ...rest] = Object.entries(entry.translations);
            return (
              <tr key={entry.id}>
                <td>{first ? `${first[1]} (${first[0]})` : ''}</td>
                <td>{rest.map(([code, text]) => `${text} (${code})`).join(', ')}</td>
                <td>
                  <button type="button" onClick={() => act(() => put(`${base}/translations-glossary`, { operations: [{ type: 'delete', id: entry.id }] }), 'Term removed.')}>
                    Remove {first?.[1]}
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <form class="inline-form" onSubmit={addTerm}>
        <LanguageSelect name="from" label="Language of the term" initial="en" />
        <label>Term<input name="term" required maxLength={100} /></label>
        <LanguageSelect name="to" label="Language of its translation" initial="fr" />
        <label>Translated as<input name="translated" required maxLength={100} /></label>
        <button type="submit">Add term</button>
      </form>
    </Frame>
  );
}
