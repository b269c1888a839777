// Settling a change request that no longer merges: each conflicting page
// with both versions side by side, and for each a choice: keep mine, keep
// theirs, or edit the result (starting from mine). Settling brings the
// change request up to date with the space with those texts.
import { useState } from 'preact/hooks';
import { post } from '../api.js';

export function ConflictPanel({ base, conflicts, onSettled }) {
  const [choices, setChoices] = useState(() =>
    Object.fromEntries(conflicts.map((c) => [c.page, { keep: 'mine', text: c.mine.markdown }])),
  );
  const [error, setError] = useState(null);
  const set = (page, change) => setChoices({ ...choices, [page]: { ...choices[page], ...change } });
  const settle = async () => {
    const resolutions = conflicts
      .filter((c) => c.resolvable)
      .map((c) => {
        const choice = choices[c.page];
        return choice.keep === 'edit' ? { page: c.page, markdown: choice.text } : { page: c.page, keep: choice.keep };
      });
    try {
      await post(`${base}/update`, { resolutions });
      setError(null);
      onSettled();
    } catch (e) {
      setError(e.message);
    }
  };
  return (
    <section class="conflicts" aria-labelledby="conflicts-heading">
      <h2 id="conflicts-heading">Conflicts</h2>
      <p>
        The space changed since this change request began, and {conflicts.length === 1 ? 'one page was' : `${conflicts.length} pages were`} changed
        on both sides. Choose what each becomes, then merge.
      </p>
      {conflicts.map((c) => (
        <div class="conflict" key={c.page}>
          <h3>{c.title}</h3>
          <p class="muted">{c.reason}</p>
          {c.resolvable ? (
            <>
              <div class="side-by-side">
                <div><h4>Mine (this change request)</h4><pre class="diff">{c.mine.markdown}</pre></div>
                <div><h4>Theirs (the space now)</h4><pre class="diff">{c.theirs.markdown}</pre></div>
              </div>
              <fieldset>
                <legend>What {c.title} becomes</legend>
                {[['mine', 'Keep mine'], ['theirs', 'Keep theirs'], ['edit', 'Edit the result']].map(([value, label]) => (
                  <label class="choice">
                    <input type="radio" name={`keep-${c.page}`} value={value} checked={choices[c.page].keep === value} onChange={() => set(c.page, { keep: value })} />
                    {label}
                  </label>
                ))}
              </fieldset>
              {choices[c.page].keep === 'edit' && (
                <label>
                  The result for {c.title}
                  <textarea class="markdown-source" rows={10} value={choices[c.page].text} onInput={(e) => set(c.page, { text: e.currentTarget.value })} />
                </label>
              )}
            </>
          ) : (
            <p>Edit this change request so the page no longer conflicts (for example, restore the page or move it back).</p>
          )}
        </div>
      ))}
      {error && <p class="error" role="alert">{error}</p>}
      <button type="button" class="primary" onClick={settle}>Settle conflicts</button>
    </section>
  );
}
