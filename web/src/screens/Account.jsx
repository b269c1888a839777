// One's account: sessions (where one is signed in, ending any), password,
// API tokens (made, shown once, revoked), signing out.
import { useState } from 'preact/hooks';
import { CopyField } from './Admin.jsx';
import { get, put, del, post } from '../api.js';
import { useLoad } from './Home.jsx';
import { NewPassword } from './SignIn.jsx';

export function Account({ me, onSignOut }) {
  const [{ data: sessions, error }, reload] = useLoad(() => get('/auth/sessions').then((l) => l.items), []);
  const [message, setMessage] = useState(null);
  const change = async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const fields = new FormData(form);
    const body = { newPassword: fields.get('newPassword') };
    if (fields.get('currentPassword')) body.currentPassword = fields.get('currentPassword');
    try {
      await put('/auth/password', body);
      setMessage('Password changed; your other sessions were ended.');
      form.reset();
      reload();
    } catch (e) {
      setMessage(e.message);
    }
  };
  return (
    <main id="main" class="page">
      <h1>{me.user.displayName}</h1>
      <p class="muted">{me.user.email}</p>
      <h2>Sessions</h2>
      {error && <p class="error" role="alert">{error.message}</p>}
      <table class="table">
        <thead><tr><th scope="col">Signed in</th><th scope="col">How</th><th scope="col">From</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody>
          {sessions?.map((s) => (
            <tr key={s.id}>
              <td>{new Date(s.createdAt).toLocaleString()}</td>
              <td>{s.method}</td>
              <td>{s.address ?? ''} {s.userAgent ? `· ${s.userAgent.slice(0, 40)}` : ''}</td>
              <td>
                {s.current ? (
                  <span>This browser</span>
                ) : (
                  <button type="button" onClick={() => del(`/auth/sessions/${s.id}`).then(reload)}>End session</button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Password</h2>
      {message && <p role="status">{message}</p>}
      <form class="stack narrow-form" onSubmit={change}>
        <label>Current password<input name="currentPassword" type="password" autocomplete="current-password" /></label>
        <NewPassword label="New password" name="newPassword" required />
        <button type="submit">Change password</button>
      </form>
      <Tokens />
      <button type="button" onClick={onSignOut}>Sign out</button>
    </main>
  );
}

/// One's API tokens: scripts, the official client and agents act as one
/// with them. A new token is shown once.
function Tokens() {
  const [{ data: tokens, error }, reload] = useLoad(() => get('/auth/tokens').then((l) => l.items), []);
  const [made, setMade] = useState(null);
  const [problem, setProblem] = useState(null);
  const create = async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    try {
      const { token } = await post('/auth/tokens', { label: form.elements.label.value });
      setMade({ label: form.elements.label.value, token });
      setProblem(null);
      form.reset();
      reload();
    } catch (e) {
      setProblem(e.message);
    }
  };
  return (
    <section aria-labelledby="tokens">
      <h2 id="tokens">API tokens</h2>
      <p class="muted">A token acts as you through the API (scripts, the official client, AI agents). Revoke one and it stops working at once.</p>
      {error && <p class="error" role="alert">{error.message}</p>}
      {made && (
        <div class="issued" role="status">
          <p>Copy the token now: it is not shown again.</p>
          <CopyField label={`Token ${made.label}`} value={made.token} />
        </div>
      )}
      <ul class="links" aria-label="Your API tokens">
        {tokens?.map((t) => (
          <li key={t.id}>
            <span><strong>{t.label ?? 'Unnamed'}</strong> <span class="muted">made {new Date(t.createdAt).toLocaleString()}</span></span>
            <button type="button" onClick={() => del(`/auth/tokens/${t.id}`).then(reload, (e) => setProblem(e.message))}>Revoke {t.label ?? t.id}</button>
          </li>
        ))}
      </ul>
      {tokens?.length === 0 && <p class="muted">No token.</p>}
      <form class="inline-form" onSubmit={create}>
        <label>Token name<input name="label" required maxLength={64} placeholder="Release script" /></label>
        <button type="submit">Make a token</button>
      </form>
      {problem && <p class="error" role="alert">{problem}</p>}
    </section>
  );
}
