// The application: who is signed in, the header, and the screen the
// address names. Every screen is a client of the public API.
import { render } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { currentSession, signOut } from './api.js';
import { interceptLinks, navigate, route, useLocation } from './router.js';
import { SignIn, LinkScreen } from './screens/SignIn.jsx';
import { Join, Members, OrgSettings, Sharing, Teams } from './screens/Admin.jsx';
import { Site, Sites } from './screens/Sites.jsx';
import { GitSync } from './screens/GitSync.jsx';
import { Translations } from './screens/Translations.jsx';
import { OpenApiSpecs } from './screens/OpenApi.jsx';
import { SingleSignOn } from './screens/SingleSignOn.jsx';
import { Home, Org, Collection } from './screens/Home.jsx';
import { Space, EditPage } from './screens/Space.jsx';
import { ChangeRequests, ChangeRequest } from './screens/ChangeRequests.jsx';
import { Account } from './screens/Account.jsx';
import { History } from './screens/History.jsx';
import { SearchDialog } from './Search.jsx';
import './style.css';

// The signed-in person's menu: their account, and signing out. A menu
// button: Enter, Space or an arrow opens it; the arrows, Home and End move;
// Escape closes it onto the button, as does choosing an item; a click or
// focus anywhere else closes it.
function AccountMenu({ user, onSignOut }) {
  // Closed (null), or open with the index of the item to focus (-1: the last).
  const [open, setOpen] = useState(null);
  const root = useRef(null);
  const button = useRef(null);
  const items = () => [...root.current.querySelectorAll('[role="menuitem"]')];
  const close = (refocus) => {
    setOpen(null);
    if (refocus) button.current.focus();
  };
  useLayoutEffect(() => {
    if (open === null) return undefined;
    items().at(open)?.focus();
    const outside = (event) => {
      if (!root.current.contains(event.target)) close(false);
    };
    document.addEventListener('pointerdown', outside);
    return () => document.removeEventListener('pointerdown', outside);
  }, [open]);

  const buttonKeys = (event) => {
    const first = { ArrowDown: 0, ArrowUp: -1 }[event.key];
    if (first === undefined) return;
    event.preventDefault();
    setOpen(first);
  };
  const menuKeys = (event) => {
    const all = items();
    const at = all.indexOf(document.activeElement);
    const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: all.length - 1 }[event.key];
    if (to !== undefined) {
      event.preventDefault();
      all[(to + all.length) % all.length].focus();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      close(true);
    } else if (event.key === ' ' && event.target.tagName === 'A') {
      // Space takes a link item as it does a button.
      event.preventDefault();
      event.target.click();
    }
  };
  // Focus moving elsewhere (Tab) closes it; focus lost to nothing (Safari
  // does not focus a clicked button) is left to the pointerdown check.
  const focusOut = (event) => {
    if (event.relatedTarget && !root.current.contains(event.relatedTarget)) close(false);
  };

  return (
    <div class="account" ref={root} onFocusOut={focusOut}>
      <button
        type="button"
        class="account-button"
        id="account-button"
        ref={button}
        aria-haspopup="menu"
        aria-expanded={open !== null ? 'true' : 'false'}
        aria-controls={open !== null ? 'account-menu' : undefined}
        onClick={() => setOpen(open === null ? 0 : null)}
        onKeyDown={buttonKeys}
      >
        <span>{user.displayName || user.email}</span>
      </button>
      {open !== null && (
        <ul class="account-menu" id="account-menu" role="menu" aria-labelledby="account-button" onKeyDown={menuKeys}>
          <li role="none">
            <a role="menuitem" tabIndex={-1} href="/me" onClick={() => close(true)}>Account</a>
          </li>
          <li role="none">
            <button type="button" role="menuitem" tabIndex={-1} onClick={onSignOut}>Sign out</button>
          </li>
        </ul>
      )}
    </div>
  );
}

function Header({ me, onSearch, onSignOut }) {
  return (
    <header class="header">
      <a class="skip" href="#main">Skip to content</a>
      <a class="brand" href="/">Quire</a>
      <button type="button" class="search-button" onClick={onSearch} aria-keyshortcuts="Control+K Meta+K">
        Search <kbd>Ctrl K</kbd>
      </button>
      <AccountMenu user={me.user} onSignOut={onSignOut} />
    </header>
  );
}

function App() {
  const location = useLocation();
  const [me, setMe] = useState(undefined);
  const [searching, setSearching] = useState(false);
  useEffect(() => {
    currentSession().then(setMe, () => setMe(null));
  }, []);
  useEffect(() => {
    const onKey = (event) => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'k') {
        event.preventDefault();
        setSearching(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  // Signing out, from the header's menu or the account screen.
  const onSignOut = async () => {
    await signOut();
    setMe(null);
    navigate('/sign-in');
  };

  const where = route(location.path);
  if (me === undefined) return <main id="main" aria-busy="true" />;
  if (where.screen === 'link') return <LinkScreen onSignedIn={setMe} />;
  if (!me) {
    if (where.screen !== 'sign-in') {
      navigate(`/sign-in?returnTo=${encodeURIComponent(location.path)}`, { replace: true });
      return null;
    }
    return <SignIn onSignedIn={setMe} />;
  }
  if (where.screen === 'sign-in') {
    navigate('/', { replace: true });
    return null;
  }
  const screens = {
    home: () => <Home />,
    org: () => <Org orgId={where.orgId} />,
    settings: () => <OrgSettings orgId={where.orgId} />,
    members: () => <Members orgId={where.orgId} />,
    teams: () => <Teams orgId={where.orgId} />,
    join: () => <Join orgId={where.orgId} inviteId={where.inviteId} />,
    sites: () => <Sites orgId={where.orgId} />,
    site: () => <Site orgId={where.orgId} siteId={where.siteId} />,
    translations: () => <Translations orgId={where.orgId} />,
    openapi: () => <OpenApiSpecs orgId={where.orgId} slug={where.slug} />,
    sso: () => <SingleSignOn orgId={where.orgId} />,
    'space-permissions': () => <Sharing resource="spaces" id={where.spaceId} />,
    'collection-permissions': () => <Sharing resource="collections" id={where.collectionId} />,
    'git-sync': () => <GitSync spaceId={where.spaceId} />,
    collection: () => <Collection collectionId={where.collectionId} />,
    space: () => <Space spaceId={where.spaceId} pagePath={where.pagePath} revision={where.revision} me={me.user} />,
    history: () => <History spaceId={where.spaceId} />,
    editor: () => <EditPage spaceId={where.spaceId} number={where.number} pageId={where.pageId} />,
    'change-requests': () => <ChangeRequests spaceId={where.spaceId} />,
    'change-request': () => <ChangeRequest spaceId={where.spaceId} number={where.number} me={me.user} />,
    account: () => <Account me={me} onSignOut={onSignOut} />,
    'not-found': () => <main id="main" class="page"><h1>Not found</h1></main>,
  };
  return (
    <>
      <Header me={me} onSearch={() => setSearching(true)} onSignOut={onSignOut} />
      {screens[where.screen]()}
      <SearchDialog open={searching} onClose={() => setSearching(false)} />
    </>
  );
}

interceptLinks();
render(<App />, document.getElementById('app'));
