// Signing in: email and password, the OpenID provider when the server has
// one, and one-time links (sign-in, password reset, invitation); the field
// for a new password, shared with the account screen.
import { useEffect, useState } from 'preact/hooks';
import { get, post, setCsrf } from '../api.js';
import { navigate } from '../router.js';

function returnTo() {
  const to = new URLSearchParams(window.location.search).get('returnTo');
  return to && to.startsWith('/') && !to.startsWith('//') ? to : '/';
}

// Back where sign-in was asked for: a screen of this application, or a
// page the server renders itself (an MCP client's authorization).
function goBack() {
  const to = returnTo();
  if (to.startsWith('/oauth/')) window.location.assign(to);
  else navigate(to, { replace: true });
}

export function SignIn({ onSignedIn }) {
  const [methods, setMethods] = useState(null);
  const [error, setError] = useState(() => new URLSearchParams(window.location.search).get('error'));
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    get('/auth/methods').then(setMethods, (e) => setError(e.message));
  }, []);

  const submit = async (event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    try {
      const session = await post('/auth/sign-in', { email: form.get('email'), password: form.get('password') });
      setCsrf(session.csrfToken);
      onSignedIn(session);
      goBack();
    } catch (e) {
      setError(e.message);
    }
    setBusy(false);
  };

  return (
    <main class="narrow" id="main">
      <h1>Sign in to Quire</h1>
      {error && <p class="error" role="alert">{error}</p>}
      <form onSubmit={submit} class="stack">
        <label>Email<input name="email" type="email" autocomplete="username" required /></label>
        <label>Password<input name="password" type="password" autocomplete="current-password" required /></label>
        <button type="submit" class="primary" disabled={busy}>Sign in</button>
      </form>
      {methods?.oidc && (
        <p>
          <a class="button" href={`${methods.oidc.startUrl}?returnTo=${encodeURIComponent(returnTo())}`}>
            Sign in with {methods.oidc.name}
          </a>
        </p>
      )}
      <p class="muted">No password yet? Ask an admin for a link, or run <code>quire sign-in-link</code> on the server.</p>
    </main>
  );
}

export function LinkScreen({ onSignedIn }) {
  const [token] = useState(() => window.location.hash.slice(1));
  const [info, setInfo] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    // The token leaves the address bar (and so history) at once.
    history.replaceState(null, '', '/sign-in/link');
    if (!token) {
      setError('This link is incomplete.');
      return;
    }
    post('/auth/links/inspect', { token }).then(setInfo, (e) => setError(e.message));
  }, []);

  const submit = async (event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const body = { token };
    if (form.get('password')) body.password = form.get('password');
    if (form.get('displayName')) body.displayName = form.get('displayName');
    try {
      const session = await post('/auth/links/use', body);
      setCsrf(session.csrfToken);
      onSignedIn(session);
      navigate('/', { replace: true });
    } catch (e) {
      setError(e.message);
    }
  };

  const heading = { invitation: 'Accept your invitation', reset: 'Set a new password', 'sign-in': 'Sign in' }[info?.purpose] ?? 'Sign in';
  return (
    <main class="narrow" id="main">
      <h1>{heading}</h1>
      {error && <p class="error" role="alert">{error}</p>}
      {info && (
        <form onSubmit={submit} class="stack">
          <p>For <strong>{info.email}</strong></p>
          {info.needsDisplayName && (
            <label>Your name<input name="displayName" autocomplete="name" required /></label>
          )}
          <NewPassword label={info.needsPassword ? 'New password' : 'Set a password (optional)'} required={info.needsPassword} />
          <button type="submit" class="primary">Continue</button>
        </form>
      )}
    </main>
  );
}

// The shortest password the server takes (quire-sign-in's MIN_LENGTH), in
// characters as it counts them (code points, not UTF-16 units).
const PASSWORD_MIN = 10;
const tooShort = (password) => password !== '' && [...password].length < PASSWORD_MIN;
const TOO_SHORT = `Too short: a password needs at least ${PASSWORD_MIN} characters.`;

/// A new password's field: the minimum stated beside it and, when what was
/// typed is shorter, said in place on submitting (the form is not sent).
export function NewPassword({ label, name = 'password', required = false }) {
  const [short, setShort] = useState(false);
  const hint = `${name}-hint`;
  const problem = `${name}-problem`;
  return (
    <div class="field">
      <label>
        {label}
        <input
          name={name}
          type="password"
          autocomplete="new-password"
          minLength={PASSWORD_MIN}
          required={required}
          aria-describedby={short ? `${hint} ${problem}` : hint}
          aria-invalid={short ? 'true' : undefined}
          onInput={(event) => {
            const input = event.currentTarget;
            input.setCustomValidity(tooShort(input.value) ? TOO_SHORT : '');
            if (!tooShort(input.value)) setShort(false);
          }}
          onInvalid={(event) => {
            const input = event.currentTarget;
            if (!tooShort(input.value)) return;
            // Our message instead of the browser's bubble.
            event.preventDefault();
            setShort(true);
            input.focus();
          }}
        />
      </label>
      <p id={hint} class="hint-text muted">At least {PASSWORD_MIN} characters.</p>
      {short && (
        <p id={problem} class="hint-text error" role="alert">{TOO_SHORT}</p>
      )}
    </div>
  );
}
