// The application's addresses (the same the API's `urls.app` fields name)
// and navigation without reloading.
import { useEffect, useState } from 'preact/hooks';

export function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  window.dispatchEvent(new Event('quire:navigate'));
}

/// The current location, kept up to date.
export function useLocation() {
  const [location, setLocation] = useState(() => ({ path: window.location.pathname, search: window.location.search }));
  useEffect(() => {
    const update = () => setLocation({ path: window.location.pathname, search: window.location.search });
    window.addEventListener('popstate', update);
    window.addEventListener('quire:navigate', update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener('quire:navigate', update);
    };
  }, []);
  return location;
}

/// Same-origin links navigate inside the application.
export function interceptLinks() {
  document.addEventListener('click', (event) => {
    const link = event.target.closest?.('a[href]');
    if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    const url = new URL(link.href, window.location.href);
    if (url.origin !== window.location.origin || link.target || link.hasAttribute('download')) return;
    if (!isAppPath(url.pathname)) return;
    event.preventDefault();
    navigate(url.pathname + url.search);
  });
}

export function isAppPath(path) {
  return path === '/' || /^\/(o|s|c|me|sign-in)(\/|$)/.test(path);
}

/// What a path shows: a screen name and its parameters.
export function route(path) {
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts.length === 0) return { screen: 'home' };
  const [first, id, ...rest] = parts;
  if (first === 'sign-in') return { screen: id === 'link' ? 'link' : 'sign-in' };
  if (first === 'me') return { screen: 'account' };
  if (first === 'o' && id) {
    if (rest[0] === 'join' && rest[1]) return { screen: 'join', orgId: id, inviteId: rest[1] };
    if (rest[0] === 'sites' && rest[1]) return { screen: 'site', orgId: id, siteId: rest[1] };
    if (rest[0] === 'openapi') return { screen: 'openapi', orgId: id, slug: rest[1] };
    if (['settings', 'members', 'teams', 'sites', 'translations', 'sso'].includes(rest[0])) return { screen: rest[0], orgId: id };
    return { screen: 'org', orgId: id };
  }
  if (first === 'c' && id) {
    if (rest[0] === 'permissions') return { screen: 'collection-permissions', collectionId: id };
    return { screen: 'collection', collectionId: id };
  }
  if (first === 's' && id) {
    if (rest[0] === 'change-requests') {
      if (!rest[1]) return { screen: 'change-requests', spaceId: id };
      if (rest[2] === 'edit') return { screen: 'editor', spaceId: id, number: Number(rest[1]), pageId: rest[3] };
      return { screen: 'change-request', spaceId: id, number: Number(rest[1]) };
    }
    if (rest[0] === 'history') return { screen: 'history', spaceId: id };
    if (rest[0] === 'permissions') return { screen: 'space-permissions', spaceId: id };
    if (rest[0] === 'git-sync') return { screen: 'git-sync', spaceId: id };
    if (rest[0] === 'revisions' && rest[1]) return { screen: 'space', spaceId: id, revision: rest[1], pagePath: rest.slice(2).join('/') };
    return { screen: 'space', spaceId: id, pagePath: rest.join('/') };
  }
  return { screen: 'not-found' };
}
