// One's account: sessions (where one is signed in, ending any), password,
// signing out. API tokens stay on /account (server-rendered) for now.
import { useState } from 'preact/hooks';
import { get, put, del, post } from '../api.js';
import { navigate } from '../router.js';
import { useLoad } from './Home.jsx';

export function Account({ me, onSignedOut }) {
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
        <label>New password<input name="newPassword" type="password" autocomplete="new-password" minLength={10} required /></label>
        <button type="submit">Change password</button>
      </form>
      <h2>API tokens</h2>
      <p><a href="/account" data-native>Manage your API tokens</a></p>
      <button
        type="button"
        onClick={async () => {
          await post('/auth/sign-out');
          onSignedOut();
          navigate('/sign-in');
        }}
      >
        Sign out
      </button>
    </main>
  );
}
