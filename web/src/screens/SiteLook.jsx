// A site's look: every customization setting an administrator chooses in
// GitBook (brand, appearance, fonts, code, header, footer, reader
// features), beside a live preview of the published page. Saved whole as the official
// `SiteCustomizationSettings` (`PUT .../customization`); whatever this
// screen does not edit (localized titles, footer groups, links set through
// the API to pages or as dropdowns, AI instructions...) is sent back as it
// was read.
import { useEffect, useRef, useState } from 'preact/hooks';
import { put } from '../api.js';
import { useAction } from './Admin.jsx';

/// The official names of GitBook's fonts, with their names as people write them.
const FONTS = [
  ['ABCFavorit', 'ABC Favorit'], ['Inter', 'Inter'], ['Roboto', 'Roboto'], ['RobotoSlab', 'Roboto Slab'],
  ['OpenSans', 'Open Sans'], ['SourceSansPro', 'Source Sans Pro'], ['Lato', 'Lato'], ['Ubuntu', 'Ubuntu'],
  ['Raleway', 'Raleway'], ['Merriweather', 'Merriweather'], ['Overpass', 'Overpass'], ['NotoSans', 'Noto Sans'],
  ['IBMPlexSerif', 'IBM Plex Serif'], ['Poppins', 'Poppins'], ['FiraSans', 'Fira Sans'],
];
const MONOSPACE_FONTS = [
  ['FiraCode', 'Fira Code'], ['IBMPlexMono', 'IBM Plex Mono'], ['JetBrainsMono', 'JetBrains Mono'],
  ['SourceCodePro', 'Source Code Pro'], ['RobotoMono', 'Roboto Mono'], ['SpaceMono', 'Space Mono'],
  ['DMMono', 'DM Mono'], ['Inconsolata', 'Inconsolata'],
];
const FONT_NAMES = Object.fromEntries([...FONTS, ...MONOSPACE_FONTS]);

/// The official code themes (`CustomizationCodeTheme`).
const CODE_THEMES = [
  'default-light', 'default-dark', 'monochrome-light', 'monochrome-dark', 'andromeeda', 'aurora-x', 'ayu-dark',
  'catppuccin-frappe', 'catppuccin-latte', 'catppuccin-macchiato', 'catppuccin-mocha', 'dark-plus', 'dracula',
  'dracula-soft', 'everforest-dark', 'everforest-light', 'github-dark', 'github-dark-default', 'github-dark-dimmed',
  'github-dark-high-contrast', 'github-light', 'github-light-default', 'github-light-high-contrast',
  'gruvbox-dark-hard', 'gruvbox-dark-medium', 'gruvbox-dark-soft', 'gruvbox-light-hard', 'gruvbox-light-medium',
  'gruvbox-light-soft', 'houston', 'kanagawa-dragon', 'kanagawa-lotus', 'kanagawa-wave', 'laserwave', 'light-plus',
  'material-theme', 'material-theme-darker', 'material-theme-lighter', 'material-theme-ocean',
  'material-theme-palenight', 'min-dark', 'min-light', 'monokai', 'night-owl', 'nord', 'one-dark-pro', 'one-light',
  'plastic', 'poimandres', 'red', 'rose-pine', 'rose-pine-dawn', 'rose-pine-moon', 'slack-dark', 'slack-ochin',
  'snazzy-light', 'solarized-dark', 'solarized-light', 'synthwave-84', 'tokyo-night', 'vesper', 'vitesse-black',
  'vitesse-dark', 'vitesse-light',
];
const WORDS = { github: 'GitHub', plus: '+', '84': "'84", pro: 'Pro', x: 'X' };
/// `github-dark-dimmed` as "GitHub Dark Dimmed", `dark-plus` as "Dark+".
const codeThemeName = (name) =>
  name.split('-').map((w) => WORDS[w] ?? w[0].toUpperCase() + w.slice(1)).join(' ').replace(' +', '+');

/// The official social platforms (`SiteSocialAccountPlatform`), named.
const PLATFORMS = [
  ['twitter', 'X (Twitter)'], ['github', 'GitHub'], ['linkedin', 'LinkedIn'], ['youtube', 'YouTube'],
  ['discord', 'Discord'], ['slack', 'Slack'], ['mastodon', 'Mastodon'], ['bluesky', 'Bluesky'],
  ['instagram', 'Instagram'], ['facebook', 'Facebook'], ['reddit', 'Reddit'], ['tiktok', 'TikTok'],
  ['threads', 'Threads'], ['medium', 'Medium'],
];

/// The official page actions (`CustomizationPageActionType`), as readers see them.
const PAGE_ACTIONS = [
  ['markdown', 'Copy or view the page as Markdown'],
  ['external-ai', 'Open the page in ChatGPT or Claude'],
  ['mcp', "Copy the site's MCP server address"],
  ['git', 'Edit on GitHub or GitLab (Git-synced spaces)'],
  ['pdf', 'Download as PDF'],
  ['assistant', 'Ask the assistant (follows the AI setting)'],
];

/// The official values of each choice, with their names here.
const CHOICES = {
  theme: [['system', "The reader's setting"], ['light', 'Light'], ['dark', 'Dark']],
  look: [['clean', 'Clean'], ['muted', 'Muted'], ['bold', 'Bold'], ['gradient', 'Gradient']],
  corners: [['straight', 'Straight'], ['rounded', 'Rounded'], ['circular', 'Circular']],
  depth: [['subtle', 'Subtle shadows'], ['flat', 'Flat']],
  links: [['default', 'Default'], ['accent', 'Underlined in the accent']],
  icons: [['regular', 'Regular'], ['solid', 'Solid'], ['duotone', 'Duotone'], ['light', 'Light'], ['thin', 'Thin']],
  sidebar: [['default', 'Plain'], ['filled', 'Filled']],
  list: [['default', 'Default'], ['pill', 'Pill'], ['line', 'Line']],
  search: [['prominent', 'Prominent'], ['subtle', 'Subtle']],
  preset: [['default', 'Default'], ['bold', 'Bold'], ['contrast', 'Contrast'], ['custom', 'Custom'], ['none', 'None']],
  external: [['self', 'In the same tab'], ['blank', 'In a new tab']],
  ai: [['none', 'Off'], ['search', 'Answers in search'], ['assistant', 'Search and the assistant']],
  favicon: [['none', "The title's first letter"], ['image', 'An image'], ['emoji', 'An emoji']],
  linkStyle: [['link', 'Link'], ['button-primary', 'Button'], ['button-secondary', 'Outlined button']],
};

/// A font setting as the value of its select: an official name, `''` for
/// "same as the text" (a heading font of `null`), or `custom` for a web
/// font defined through the API (kept as it is).
const fontChoice = (font, fallback) => (font === null || font === undefined ? fallback : typeof font === 'string' ? font : 'custom');

/// Whether a header link is one this screen edits: to an address, with no
/// sub-links and no condition. Others are shown and kept as they are.
const editableLink = (link) =>
  link?.to?.kind === 'url' && !(link.links?.length > 0) && !(typeof link.condition === 'string' && link.condition.trim());

/// What a header link this screen does not edit leads to, in words.
function linkTarget(link) {
  const to = link.to;
  if (link.links?.length > 0) return `a menu of ${link.links.length} link${link.links.length === 1 ? '' : 's'}`;
  if (!to) return 'nothing';
  switch (to.kind) {
    case 'url': return to.url;
    case 'page': return 'a page';
    case 'space': return 'a space';
    case 'anchor': return 'a heading';
    case 'file': return 'a file';
    case 'collection': return 'a collection';
    case 'openapi': return `the API reference ${to.spec}`;
    default: return `a ${to.kind}`;
  }
}

let nextKey = 0;
const key = () => ++nextKey;

/// The parts of the customization this screen edits, read from the settings.
function lookOf(settings, site) {
  const styling = settings.styling ?? {};
  const logo = settings.header?.logo;
  const icon = settings.favicon?.icon;
  const codeTheme = styling.codeTheme?.default ?? {};
  return {
    title: settings.title ?? site.title,
    light: styling.primaryColor?.light ?? '#346DDB',
    dark: styling.primaryColor?.dark ?? '#346DDB',
    tint: Boolean(styling.tint?.color),
    tintLight: styling.tint?.color?.light ?? '#346DDB',
    tintDark: styling.tint?.color?.dark ?? '#346DDB',
    logoLight: logo?.light ?? '',
    logoDark: logo?.dark && logo.dark !== logo.light ? logo.dark : '',
    favicon: icon ? 'image' : settings.favicon?.emoji ? 'emoji' : 'none',
    iconLight: icon?.light ?? '',
    iconDark: icon?.dark && icon.dark !== icon.light ? icon.dark : '',
    emoji: settings.favicon?.emoji ?? '',
    theme: settings.themes?.default ?? 'system',
    toggle: settings.themes?.toggeable !== false,
    look: styling.theme ?? 'clean',
    corners: styling.corners ?? 'straight',
    depth: styling.depth ?? 'subtle',
    links: styling.links ?? 'default',
    icons: styling.icons ?? 'regular',
    sidebar: styling.sidebar?.background ?? 'default',
    list: styling.sidebar?.list ?? 'default',
    font: fontChoice(styling.font, 'ABCFavorit'),
    headingFont: fontChoice(styling.headingFont, ''),
    monospaceFont: fontChoice(styling.monospaceFont, 'FiraCode'),
    codeLight: codeTheme.light ?? 'default-light',
    codeDark: codeTheme.dark ?? 'default-dark',
    search: styling.search ?? 'prominent',
    preset: settings.header?.preset ?? 'default',
    headerLinks: (settings.header?.links ?? []).map((link) => ({
      key: key(),
      original: link,
      editable: editableLink(link),
      title: link.title ?? '',
      url: link.to?.url ?? '',
      style: link.style ?? 'link',
    })),
    announcement: settings.announcement?.enabled ? settings.announcement.message ?? '' : '',
    copyright: settings.footer?.copyright ?? '',
    social: (settings.socialAccounts ?? []).map((account) => ({
      key: key(),
      original: account,
      platform: account.platform ?? 'github',
      handle: account.handle ?? '',
      footer: account.display?.footer !== false,
      header: account.display?.header === true,
    })),
    privacy: settings.privacyPolicy?.url ?? '',
    feedback: settings.feedback?.enabled === true,
    pagination: settings.pagination?.enabled !== false,
    external: settings.externalLinks?.target ?? 'self',
    actions: settings.pageActions?.items ?? [],
    ai: settings.ai?.mode ?? 'none',
    trademark: settings.trademark?.enabled === true,
  };
}

/// `settings` with what the screen shows in `look`: every other setting,
/// and every other key of the objects it changes, as they were.
function settingsOf(settings, look) {
  const styling = settings.styling ?? {};
  const font = (choice, current) => (choice === 'custom' ? current : choice);
  const { tint, ...untinted } = styling;
  const next = {
    ...settings,
    title: look.title,
    styling: {
      ...untinted,
      ...(look.tint ? { tint: { ...tint, color: { light: look.tintLight, dark: look.tintDark } } } : {}),
      primaryColor: { ...styling.primaryColor, light: look.light, dark: look.dark },
      theme: look.look,
      corners: look.corners,
      depth: look.depth,
      links: look.links,
      icons: look.icons,
      search: look.search,
      font: font(look.font, styling.font),
      headingFont: look.headingFont === '' ? null : font(look.headingFont, styling.headingFont),
      monospaceFont: font(look.monospaceFont, styling.monospaceFont),
      codeTheme: {
        ...styling.codeTheme,
        default: { ...styling.codeTheme?.default, light: look.codeLight, dark: look.codeDark },
      },
      sidebar: { ...styling.sidebar, background: look.sidebar, list: look.list },
    },
    header: {
      ...settings.header,
      preset: look.preset,
      links: look.headerLinks.map((link) =>
        link.editable
          ? {
              ...link.original,
              title: link.title,
              to: { ...link.original?.to, kind: 'url', url: link.url },
              style: link.style,
              links: link.original?.links ?? [],
            }
          : link.original,
      ),
    },
    favicon: Object.fromEntries(Object.entries(settings.favicon ?? {}).filter(([k]) => k !== 'icon' && k !== 'emoji')),
    footer: { ...settings.footer, copyright: look.copyright },
    socialAccounts: look.social.map((account) => ({
      ...account.original,
      platform: account.platform,
      handle: account.handle.trim().replace(/^@/, ''),
      display: { ...account.original?.display, footer: account.footer, header: account.header },
    })),
    privacyPolicy: { ...settings.privacyPolicy, url: look.privacy },
    themes: { ...settings.themes, default: look.theme, toggeable: look.toggle },
    feedback: { ...settings.feedback, enabled: look.feedback },
    pagination: { ...settings.pagination, enabled: look.pagination },
    externalLinks: { ...settings.externalLinks, target: look.external },
    pageActions: { ...settings.pageActions, items: look.actions },
    ai: { ...settings.ai, mode: look.ai },
    trademark: { ...settings.trademark, enabled: look.trademark },
  };
  if (look.logoLight) next.header.logo = { ...settings.header?.logo, light: look.logoLight, dark: look.logoDark || look.logoLight };
  else delete next.header.logo;
  if (look.favicon === 'image' && look.iconLight) next.favicon.icon = { light: look.iconLight, dark: look.iconDark || look.iconLight };
  if (look.favicon === 'emoji' && look.emoji) next.favicon.emoji = look.emoji;
  if (!look.copyright) delete next.footer.copyright;
  if (!look.privacy) delete next.privacyPolicy.url;
  // An announcement cleared is turned off, its other settings kept.
  if (look.announcement) {
    next.announcement = { ...settings.announcement, enabled: true, message: look.announcement, style: settings.announcement?.style ?? 'info' };
  } else if (settings.announcement) {
    next.announcement = { ...settings.announcement, enabled: false };
  }
  return next;
}

/// The styling choices the published page follows as attributes of its
/// `<html>` (`data-look`, `data-corners`, ...), as the server writes them.
const STYLING = ['look', 'corners', 'depth', 'links', 'sidebar', 'list', 'search'];

const SANS = 'system-ui,-apple-system,"Segoe UI",Roboto,sans-serif';
const MONO = 'ui-monospace,SFMono-Regular,Menlo,Consolas,monospace';
/// A font choice as CSS, the way the published page writes it (the
/// platform's default fonts are left to the reader's system).
const family = (choice, fallback, platformDefault) =>
  choice === platformDefault ? fallback : `"${FONT_NAMES[choice]}",${fallback}`;

/// Shows `look` on the published page in the preview frame as it is
/// typed: the accent colour, the title or logo, the fonts, the theme, the
/// styling choices and the announcement. (Header links, social accounts
/// and the favicon show once saved, when the preview is loaded again.)
function showInPreview(frame, look) {
  const doc = frame?.contentDocument;
  if (!doc?.documentElement || !doc.head) return;
  let style = doc.getElementById('quire-preview');
  if (!style) {
    style = doc.createElement('style');
    style.id = 'quire-preview';
    doc.head.append(style);
  }
  const fonts = [
    look.font !== 'custom' && `body{font-family:${family(look.font, SANS, 'ABCFavorit')}}`,
    look.headingFont !== 'custom' &&
      `h1,h2,h3,h4,.brand{font-family:${look.headingFont ? family(look.headingFont, SANS, '') : 'inherit'}}`,
    look.monospaceFont !== 'custom' && `code,pre{font-family:${family(look.monospaceFont, MONO, 'FiraCode')}}`,
  ];
  style.textContent = [`:root{--accent:${look.light}}:root[data-theme=dark]{--accent:${look.dark}}`, ...fonts].filter(Boolean).join('');
  if (look.theme === 'light' || look.theme === 'dark') doc.documentElement.dataset.theme = look.theme;
  else delete doc.documentElement.dataset.theme;
  for (const name of STYLING) doc.documentElement.dataset[name] = look[name];
  const brand = doc.querySelector('.brand');
  if (brand) {
    if (look.logoLight) {
      const logo = (src, kind) => {
        const image = doc.createElement('img');
        image.className = kind ? `logo logo-${kind}` : 'logo';
        image.src = src;
        image.alt = look.title;
        image.height = 28;
        return image;
      };
      const dark = look.logoDark && look.logoDark !== look.logoLight;
      brand.replaceChildren(...(dark ? [logo(look.logoLight, 'light'), logo(look.logoDark, 'dark')] : [logo(look.logoLight)]));
    } else {
      brand.textContent = look.title;
    }
  }
  let banner = doc.querySelector('.announcement');
  if (look.announcement) {
    if (!banner) {
      banner = doc.createElement('div');
      banner.className = 'announcement hint hint-info';
      doc.body.prepend(banner);
    }
    banner.textContent = look.announcement;
  } else if (banner) {
    banner.remove();
  }
}

/// An image's address, with the image beside it as it loads (or a word
/// when it does not).
function ImageField({ label, field, placeholder = 'https://' }) {
  const props = field;
  const [broken, setBroken] = useState(false);
  useEffect(() => setBroken(false), [props.value]);
  return (
    <div class="image-field">
      <label>
        {label}
        <input type="url" {...props} placeholder={placeholder} />
      </label>
      <span class="thumb" aria-live="polite">
        {props.value && !broken && <img src={props.value} alt={`${label}, as it loads`} onError={() => setBroken(true)} />}
        {props.value && broken && <span class="muted">Not loaded</span>}
      </span>
    </div>
  );
}

/// A group of the form under its heading.
function Group({ id, title, children, note }) {
  return (
    <section class="look-group" aria-labelledby={id}>
      <h3 id={id}>{title}</h3>
      {note && <p class="muted">{note}</p>}
      {children}
    </section>
  );
}

/// The site's look, with the published page beside it changing as the
/// fields change; saved as the official customization settings.
export function Look({ base, site, customization, reload }) {
  const [act, feedback] = useAction(reload);
  const [look, setLook] = useState(() => lookOf(customization, site));
  const frame = useRef(null);
  const form = useRef(null);
  useEffect(() => setLook(lookOf(customization, site)), [customization]);
  useEffect(() => showInPreview(frame.current, look), [look]);
  const sameOrigin = site.urls.published && new URL(site.urls.published, location.href).origin === location.origin;
  const set = (changes) => setLook((current) => ({ ...current, ...changes }));
  /// The props of the input or select of `name`; `path` names its
  /// official setting, so a refusal naming it can point at it.
  const field = (name, path) => ({
    name,
    'data-field': path,
    value: look[name],
    onInput: (e) => set({ [name]: e.currentTarget.value }),
  });
  const check = (name, path) => ({
    name,
    'data-field': path,
    type: 'checkbox',
    checked: look[name],
    onChange: (e) => set({ [name]: e.currentTarget.checked }),
  });
  const select = (label, name, path, choices = CHOICES[name]) => (
    <label>
      {label}
      <select {...field(name, path)}>
        {choices.map(([value, text]) => <option key={value} value={value}>{text}</option>)}
      </select>
    </label>
  );
  const fontSelect = (label, name, path, fonts, same) => {
    const current = customization.styling?.[name];
    return (
      <label>
        {label}
        <select {...field(name, path)}>
          {same && <option value="">Same as the text</option>}
          {fonts.map(([value, text]) => <option key={value} value={value}>{text}</option>)}
          {current && typeof current === 'object' && <option value="custom">{current.fontFamily} (web font set through the API)</option>}
        </select>
      </label>
    );
  };

  // Lists: header links and social accounts.
  const changeItem = (list, index, changes) =>
    set({ [list]: look[list].map((item, i) => (i === index ? { ...item, ...changes } : item)) });
  const removeItem = (list, index) => set({ [list]: look[list].filter((_, i) => i !== index) });
  const moveItem = (list, index, by) => {
    const items = [...look[list]];
    const [item] = items.splice(index, 1);
    items.splice(index + by, 0, item);
    set({ [list]: items });
  };
  const addLink = () =>
    set({ headerLinks: [...look.headerLinks, { key: key(), original: null, editable: true, title: '', url: '', style: 'link' }] });
  const addAccount = () =>
    set({ social: [...look.social, { key: key(), original: null, platform: 'github', handle: '', footer: true, header: false }] });
  const toggleAction = (action, on) =>
    set({ actions: on ? [...look.actions.filter((a) => a !== action), action] : look.actions.filter((a) => a !== action) });

  const save = (event) => {
    event.preventDefault();
    const { updatedAt, ...settings } = customization;
    const next = settingsOf(settings, look);
    for (const marked of form.current.querySelectorAll('[aria-invalid]')) marked.removeAttribute('aria-invalid');
    act(async () => {
      try {
        await put(`${base}/customization`, next);
      } catch (error) {
        pointAt(form.current, error.message);
        throw error;
      }
      frame.current?.contentWindow?.location.reload();
    }, 'Look saved.');
  };

  const links = look.headerLinks;
  return (
    <section aria-labelledby="look">
      <h2 id="look">Look</h2>
      <div class="look">
        <form class="stack-form look-form" onSubmit={save} ref={form}>
          <Group id="look-brand" title="Brand">
            <label>Title shown on the site<input {...field('title', 'title')} required minLength={2} maxLength={128} /></label>
            <ImageField label="Logo (light theme)" field={field('logoLight', 'header.logo.light')} />
            <ImageField label="Logo (dark theme, empty: the same)" field={field('logoDark', 'header.logo.dark')} />
            <p class="muted hint-text">A logo replaces the title in the header; the title names it.</p>
            {select('Favicon', 'favicon', 'favicon')}
            {look.favicon === 'image' && (
              <>
                <ImageField label="Favicon (light theme)" field={{ ...field('iconLight', 'favicon.icon.light'), required: true }} />
                <ImageField label="Favicon (dark theme, empty: the same)" field={field('iconDark', 'favicon.icon.dark')} />
              </>
            )}
            {look.favicon === 'emoji' && (
              <label>Favicon emoji<input {...field('emoji', 'favicon.emoji')} required maxLength={50} placeholder="📘" /></label>
            )}
            <div class="pair">
              <label>Accent colour (light)<input type="color" {...field('light', 'styling.primaryColor.light')} /></label>
              <label>Accent colour (dark)<input type="color" {...field('dark', 'styling.primaryColor.dark')} /></label>
            </div>
            <label class="choice"><input {...check('tint', 'styling.tint')} />Tint backgrounds with a colour</label>
            {look.tint && (
              <div class="pair">
                <label>Tint (light)<input type="color" {...field('tintLight', 'styling.tint.color.light')} /></label>
                <label>Tint (dark)<input type="color" {...field('tintDark', 'styling.tint.color.dark')} /></label>
              </div>
            )}
          </Group>

          <Group id="look-appearance" title="Appearance">
            {select('Theme', 'theme', 'themes.default')}
            <label class="choice"><input {...check('toggle', 'themes.toggeable')} />Readers may switch between light and dark</label>
            <div class="pair">
              {select('Style', 'look', 'styling.theme')}
              {select('Corners', 'corners', 'styling.corners')}
              {select('Depth', 'depth', 'styling.depth')}
              {select('Links', 'links', 'styling.links')}
              {select('Icons', 'icons', 'styling.icons')}
              {select('Sidebar', 'sidebar', 'styling.sidebar.background')}
            </div>
            {select('Current page in the sidebar', 'list', 'styling.sidebar.list')}
          </Group>

          <Group id="look-typography" title="Typography">
            {fontSelect('Text font', 'font', 'styling.font', FONTS)}
            {fontSelect('Heading font', 'headingFont', 'styling.headingFont', FONTS, true)}
            {fontSelect('Code font', 'monospaceFont', 'styling.monospaceFont', MONOSPACE_FONTS)}
          </Group>

          <Group id="look-code" title="Code">
            {select('Code theme (light)', 'codeLight', 'styling.codeTheme.default.light', CODE_THEMES.map((t) => [t, codeThemeName(t)]))}
            {select('Code theme (dark)', 'codeDark', 'styling.codeTheme.default.dark', CODE_THEMES.map((t) => [t, codeThemeName(t)]))}
          </Group>

          <Group id="look-header" title="Header">
            {select('Search box', 'search', 'styling.search')}
            {select('Header preset (from older sites)', 'preset', 'header.preset')}
            <label>Announcement (empty: none)<input {...field('announcement', 'announcement.message')} minLength={2} maxLength={128} /></label>
            <h4 id="look-header-links">Header links</h4>
            {links.length === 0 && <p class="muted hint-text">No link in the header.</p>}
            <ol class="item-list" aria-labelledby="look-header-links">
              {links.map((link, i) => {
                const name = `Header link ${i + 1}`;
                const at = `header.links[${i}]`;
                return (
                  <li key={link.key}>
                    <fieldset class="item" data-field={at}>
                      <legend>{name}</legend>
                      {link.editable ? (
                        <>
                          <label>Text<input name={`${at}.title`} data-field={`${at}.title`} value={link.title} required maxLength={64}
                            onInput={(e) => changeItem('headerLinks', i, { title: e.currentTarget.value })} /></label>
                          <label>Address<input type="url" name={`${at}.to.url`} data-field={`${at}.to`} value={link.url} required placeholder="https://"
                            onInput={(e) => changeItem('headerLinks', i, { url: e.currentTarget.value })} /></label>
                          <label>Shown as
                            <select name={`${at}.style`} data-field={`${at}.style`} value={link.style}
                              onInput={(e) => changeItem('headerLinks', i, { style: e.currentTarget.value })}>
                              {CHOICES.linkStyle.map(([value, text]) => <option key={value} value={value}>{text}</option>)}
                            </select>
                          </label>
                        </>
                      ) : (
                        <p class="kept">
                          <strong>{link.title || '(no text)'}</strong> <span class="muted">to {linkTarget(link.original)}
                          {link.original?.condition ? ', shown to some visitors only' : ''}</span>
                          <br /><span class="muted hint-text">Set through the API; kept as it is (change it there).</span>
                        </p>
                      )}
                      <div class="item-buttons">
                        <button type="button" disabled={i === 0} onClick={() => moveItem('headerLinks', i, -1)} aria-label={`Move ${name.toLowerCase()} up`}>↑</button>
                        <button type="button" disabled={i === links.length - 1} onClick={() => moveItem('headerLinks', i, 1)} aria-label={`Move ${name.toLowerCase()} down`}>↓</button>
                        <button type="button" onClick={() => removeItem('headerLinks', i)}>Remove {name.toLowerCase()}</button>
                      </div>
                    </fieldset>
                  </li>
                );
              })}
            </ol>
            <button type="button" class="add" onClick={addLink}>Add a header link</button>
          </Group>

          <Group id="look-footer" title="Footer">
            <label>Copyright<input {...field('copyright', 'footer.copyright')} maxLength={512} placeholder="© Acme" /></label>
            <label>Privacy policy address<input type="url" {...field('privacy', 'privacyPolicy.url')} placeholder="https://" /></label>
            <h4 id="look-social">Social accounts</h4>
            {look.social.length === 0 && <p class="muted hint-text">No social account.</p>}
            <ol class="item-list" aria-labelledby="look-social">
              {look.social.map((account, i) => {
                const name = `Social account ${i + 1}`;
                const at = `socialAccounts[${i}]`;
                return (
                  <li key={account.key}>
                    <fieldset class="item" data-field={at}>
                      <legend>{name}</legend>
                      <div class="pair">
                        <label>Platform
                          <select name={`${at}.platform`} data-field={`${at}.platform`} value={account.platform}
                            onInput={(e) => changeItem('social', i, { platform: e.currentTarget.value })}>
                            {PLATFORMS.map(([value, text]) => <option key={value} value={value}>{text}</option>)}
                          </select>
                        </label>
                        <label>Handle<input name={`${at}.handle`} data-field={`${at}.handle`} value={account.handle} required maxLength={128}
                          placeholder={account.platform === 'mastodon' ? 'user@server' : 'without @'}
                          onInput={(e) => changeItem('social', i, { handle: e.currentTarget.value })} /></label>
                      </div>
                      <div class="item-buttons">
                        <label class="choice"><input type="checkbox" checked={account.footer}
                          onChange={(e) => changeItem('social', i, { footer: e.currentTarget.checked })} />In the footer</label>
                        <label class="choice"><input type="checkbox" checked={account.header}
                          onChange={(e) => changeItem('social', i, { header: e.currentTarget.checked })} />In the header</label>
                        <button type="button" onClick={() => removeItem('social', i)}>Remove {name.toLowerCase()}</button>
                      </div>
                    </fieldset>
                  </li>
                );
              })}
            </ol>
            {look.social.length < 10 && <button type="button" class="add" onClick={addAccount}>Add a social account</button>}
          </Group>

          <Group id="look-reader" title="Reader features">
            <label class="choice"><input {...check('pagination', 'pagination.enabled')} />Previous and next links under pages</label>
            <label class="choice"><input {...check('feedback', 'feedback.enabled')} />Ask readers whether a page helped</label>
            <label class="choice"><input {...check('trademark', 'trademark.enabled')} />Show the “Powered by” mark</label>
            {select('Links to other sites open', 'external', 'externalLinks.target')}
            {select('AI answers', 'ai', 'ai.mode')}
            <fieldset data-field="pageActions">
              <legend>Page actions (none: no page menu)</legend>
              {PAGE_ACTIONS.map(([action, text]) => (
                <label key={action} class="choice">
                  <input type="checkbox" name={`pageActions.${action}`} checked={look.actions.includes(action)}
                    onChange={(e) => toggleAction(action, e.currentTarget.checked)} />
                  {text}
                </label>
              ))}
            </fieldset>
          </Group>

          <div class="save-bar">
            <button type="submit" class="primary">Save look</button>
            {feedback}
          </div>
        </form>
        {sameOrigin ? (
          <iframe
            ref={frame}
            class="site-preview"
            title="Preview of the site"
            src={site.urls.published}
            onLoad={() => showInPreview(frame.current, look)}
          />
        ) : (
          <p class="muted">Publish the site to see its pages here as you change its look.</p>
        )}
      </div>
    </section>
  );
}

/// Marks and focuses the field a refusal names (`header.links[0].to must
/// be ...`): the one whose setting is the longest start of the name.
function pointAt(form, message) {
  const named = message.split(/\s/)[0] ?? '';
  let best = null;
  for (const element of form.querySelectorAll('[data-field]')) {
    const path = element.dataset.field;
    const fits = named === path || named.startsWith(`${path}.`) || named.startsWith(`${path}[`);
    if (fits && (!best || path.length > best.dataset.field.length)) best = element;
  }
  if (!best) return;
  const target = best.matches('input, select, textarea') ? best : best.querySelector('input, select, textarea, button');
  best.setAttribute('aria-invalid', 'true');
  target?.focus({ preventScroll: true });
  // Clear of the sticky header above and the save bar below.
  best.scrollIntoView({ block: 'center' });
}
