// The application: who is signed in, the header, and the screen the
// address names. Every screen is a client of the public API.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { currentSession } from './api.js';
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

function Header({ me, onSearch }) {
  return (
    <header class="header">
      <a class="skip" href="#main">Skip to content</a>
      <a class="brand" href="/">Quire</a>
      <button type="button" class="search-button" onClick={onSearch} aria-keyshortcuts="Control+K Meta+K">
        Search <kbd>Ctrl K</kbd>
      </button>
      <a href="/me" class="me">{me.user.displayName}</a>
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
    account: () => <Account me={me} onSignedOut={() => setMe(null)} />,
    'not-found': () => <main id="main" class="page"><h1>Not found</h1></main>,
  };
  return (
    <>
      <Header me={me} onSearch={() => setSearching(true)} />
      {screens[where.screen]()}
      <SearchDialog open={searching} onClose={() => setSearching(false)} />
    </>
  );
}

interceptLinks();
render(<App />, document.getElementById('app'));
