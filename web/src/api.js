// The one way the application talks to Quire: the public API (/v1) and the
// sign-in endpoints (/auth), authenticated by the session cookie, with the
// session's CSRF token on every request that changes something.

let csrfToken = null;

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export function setCsrf(token) {
  csrfToken = token;
}

export async function request(method, path, body) {
  const headers = { Accept: 'application/json' };
  if (method !== 'GET' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const data = text ? JSON.parse(text) : null;
  if (!response.ok) {
    throw new ApiError(response.status, data?.error?.message ?? response.statusText);
  }
  return data;
}

export const get = (path) => request('GET', path);
export const post = (path, body = {}) => request('POST', path, body);
export const put = (path, body = {}) => request('PUT', path, body);
export const patch = (path, body = {}) => request('PATCH', path, body);
export const del = (path) => request('DELETE', path);

/// Every item of a paged list.
export async function all(path) {
  const items = [];
  let url = path;
  for (;;) {
    const page = await get(url);
    items.push(...page.items);
    if (!page.next?.page) return items;
    url = `${path}${path.includes('?') ? '&' : '?'}page=${encodeURIComponent(page.next.page)}`;
  }
}

/// The signed-in session, or null.
export async function currentSession() {
  try {
    const session = await get('/auth/session');
    setCsrf(session.csrfToken);
    return session;
  } catch (error) {
    if (error.status === 401) return null;
    throw error;
  }
}

/// Ends this browser's session; one that had already ended counts as ended.
export async function signOut() {
  try {
    await post('/auth/sign-out');
  } catch (error) {
    if (error.status !== 401) throw error;
  }
  setCsrf(null);
}
