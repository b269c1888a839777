// Writes src/code_themes.rs: the colours of each code theme a site may
// choose (`styling.codeTheme`, the 64 names of the enum in
// crates/quire-sites/src/customization.schema.json) as the few colours the
// server-side highlighter marks (src/highlight.rs: comments, strings,
// numbers, keywords) plus the block's background and text.
//
// Run from anywhere, with Node 18 or later and npm (the registry reached):
//
//     node crates/quire-site-render/scripts/code-themes.mjs [version]
//
// It fetches the npm package @shikijs/themes (the version below unless one
// is given) with `npm pack` into a temporary folder, reads each theme
// there, and writes the Rust file. Nothing is installed or added to any
// package.json. The output is deterministic for one version.
//
// How a theme becomes a palette (what Shiki itself does, which GitBook uses):
// - background and foreground: the theme's scope-less token rule if it has
//   one, else `colors["editor.background"]` / `colors["editor.foreground"]`,
//   else VS Code's fallbacks (#fffffe / #333333 light, #1e1e1e / #bbbbbb
//   dark);
// - comment, string, number, keyword: the colour a token of scope
//   `comment`, `string`, `constant.numeric`, `keyword` takes, i.e. of the
//   token rules whose selector covers that whole scope (the scope itself or
//   a parent of it, `constant` for `constant.numeric`; no descendant
//   selectors like `source.js comment`), the most specific, and of those
//   the last, as TextMate themes resolve. Where none has a colour, the
//   scope of the commonest such token: `comment.line`, `string.quoted.double`,
//   `keyword.control`, then `storage.type` (`fn`, `let`, `class` in most
//   grammars); where that has none either, a comment takes 60% foreground
//   and 40% background (dimmed), the others the foreground.
//   Each fallback is noted on its row.
// - `default-light` / `default-dark` are GitBook's own look, which is the
//   site stylesheet's colours (read from src/site.css): the layout emits
//   nothing for them, the rows are for reference and completeness.
// - `monochrome-light` / `monochrome-dark`: the site stylesheet's code
//   background and text colours with no token colours (strings, numbers and
//   keywords in the text colour), comments in its dimmed (muted) colour.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PACKAGE = '@shikijs/themes';
const VERSION = process.argv[2] ?? '4.6.0';

const here = dirname(fileURLToPath(import.meta.url));
const crate = join(here, '..');
const schemaPath = join(crate, '..', 'quire-sites', 'src', 'customization.schema.json');
const cssPath = join(crate, 'src', 'site.css');
const outPath = join(crate, 'src', 'code_themes.rs');

// The names, in the schema's order.
function findCodeTheme(node) {
  if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'codeTheme') return value;
      const found = findCodeTheme(value);
      if (found) return found;
    }
  }
  return undefined;
}
const codeTheme = findCodeTheme(JSON.parse(readFileSync(schemaPath, 'utf8')));
const names = codeTheme?.properties?.default?.properties?.light?.enum;
if (!Array.isArray(names) || names.length === 0) throw new Error(`no codeTheme enum in ${schemaPath}`);

// A colour as lower-case #rrggbb or #rrggbbaa.
function hex(value, what) {
  const v = String(value).trim().toLowerCase();
  let m = /^#([0-9a-f])([0-9a-f])([0-9a-f])([0-9a-f])?$/.exec(v);
  if (m) return hex('#' + m.slice(1).filter(Boolean).map((d) => d + d).join(''), what);
  // Opaque alpha (`ff`) is dropped: the same colour, shorter.
  if (/^#[0-9a-f]{6}([0-9a-f]{2})?$/.test(v)) return v.length === 9 && v.endsWith('ff') ? v.slice(0, 7) : v;
  throw new Error(`${what}: not a hex colour: ${value}`);
}

// `a` mixed with `b`, `share` of `a` (alpha dropped), as #rrggbb.
function mix(a, b, share) {
  const rgb = (c) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16));
  const [x, y] = [rgb(a), rgb(b)];
  return '#' + x.map((v, i) => Math.round(v * share + y[i] * (1 - share)).toString(16).padStart(2, '0')).join('');
}

// The site stylesheet's colours: `--soft`, `--fg`, `--muted` of each mode,
// and its token colours.
const css = readFileSync(cssPath, 'utf8');
function cssVar(block, name) {
  const m = new RegExp(`--${name}:(#[0-9a-fA-F]{3,8})`).exec(block);
  if (!m) throw new Error(`site.css: no --${name}`);
  return hex(m[1], `site.css --${name}`);
}
// The token colours of a mode: from the line of site.css that sets them.
function cssTokens(line, mode) {
  const m = line.exec(css);
  if (!m) throw new Error(`site.css: no ${mode} token colours`);
  const colour = (cls) => {
    const c = new RegExp(`\\.${cls}\\{color:(#[0-9a-fA-F]{3,8})`).exec(m[0]);
    if (!c) throw new Error(`site.css: no ${mode} .${cls} colour`);
    return hex(c[1], `site.css ${mode} .${cls}`);
  };
  return { string: colour('s'), number: colour('n'), keyword: colour('k') };
}
const lightRoot = /(^|\n):root\{[^}]*\}/.exec(css)?.[0];
const darkRoot = /:root\[data-theme=dark\]\{[^}]*\}/.exec(css)?.[0];
if (!lightRoot || !darkRoot) throw new Error('site.css: no :root blocks');
const site = {
  light: {
    background: cssVar(lightRoot, 'soft'),
    foreground: cssVar(lightRoot, 'fg'),
    comment: cssVar(lightRoot, 'muted'),
    ...cssTokens(/^\.k\{color:.*$/m, 'light'),
  },
  dark: {
    background: cssVar(darkRoot, 'soft'),
    foreground: cssVar(darkRoot, 'fg'),
    comment: cssVar(darkRoot, 'muted'),
    ...cssTokens(/^:root\[data-theme=dark\] \.k\{color:.*$/m, 'dark'),
  },
};

// The package, fetched.
const work = mkdtempSync(join(tmpdir(), 'code-themes-'));
let version;
const themes = new Map();
try {
  const tarball = execFileSync('npm', ['pack', `${PACKAGE}@${VERSION}`, '--silent', '--pack-destination', work], {
    encoding: 'utf8',
  }).trim().split('\n').pop();
  execFileSync('tar', ['xzf', join(work, tarball), '-C', work]);
  const pkg = join(work, 'package');
  version = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')).version;
  const dist = join(pkg, 'dist');
  for (const file of readdirSync(dist).filter((f) => f.endsWith('.mjs')).sort()) {
    const theme = (await import(pathToFileURL(join(dist, file)).href)).default;
    if (theme && typeof theme === 'object' && (theme.tokenColors || theme.settings)) {
      themes.set(file.slice(0, -'.mjs'.length), theme);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

// The token rules of a theme as [selector, settings, index], selectors one
// scope each (descendant and exclusion selectors left out).
function rules(theme) {
  const out = [];
  (theme.tokenColors ?? theme.settings ?? []).forEach((rule, index) => {
    const scopes = Array.isArray(rule.scope) ? rule.scope : typeof rule.scope === 'string' ? rule.scope.split(',') : [];
    for (const s of scopes.map((s) => String(s).trim())) {
      if (s && /^[\w.-]+$/.test(s) && !s.startsWith('-')) out.push([s, rule.settings ?? {}, index]);
    }
  });
  return out;
}

// The colour a token of `scope` takes: of the rules with a foreground whose
// selector is the scope or a parent of it, the most specific, then the last.
function colourOf(theme, scope) {
  let best;
  for (const [selector, settings, index] of rules(theme)) {
    if (!settings.foreground) continue;
    if (selector !== scope && !scope.startsWith(selector + '.')) continue;
    if (!best || selector.length > best.selector.length || (selector.length === best.selector.length && index >= best.index)) {
      best = { selector, index, colour: settings.foreground };
    }
  }
  return best;
}

function palette(name, theme) {
  const light = theme.type === 'light';
  const global = (theme.tokenColors ?? theme.settings ?? []).find((r) => !r.name && !r.scope)?.settings ?? {};
  const notes = [];
  const background = hex(global.background ?? theme.colors?.['editor.background'] ?? (light ? '#fffffe' : '#1e1e1e'), `${name} background`);
  const foreground = hex(global.foreground ?? theme.colors?.['editor.foreground'] ?? (light ? '#333333' : '#bbbbbb'), `${name} foreground`);
  if (!global.background && !theme.colors?.['editor.background']) notes.push('background: VS Code fallback');
  if (!global.foreground && !theme.colors?.['editor.foreground']) notes.push('foreground: VS Code fallback');
  const token = (what, scope, fallbacks, last) => {
    for (const s of [scope, ...fallbacks]) {
      const found = colourOf(theme, s);
      if (found) {
        if (s !== scope) notes.push(`${what}: no rule for \`${scope}\`, from \`${found.selector}\``);
        return hex(found.colour, `${name} ${what}`);
      }
    }
    notes.push(`${what}: ${last[1]}`);
    return last[0];
  };
  return {
    background,
    foreground,
    comment: token('comment', 'comment', ['comment.line'], [mix(foreground, background, 0.6), 'foreground dimmed (no comment rule)']),
    string: token('string', 'string', ['string.quoted.double'], [foreground, 'foreground (no string rule)']),
    number: token('number', 'constant.numeric', [], [foreground, 'foreground (no number rule)']),
    keyword: token('keyword', 'keyword', ['keyword.control', 'storage.type'], [foreground, 'foreground (no keyword rule)']),
    notes,
  };
}

const rows = names.map((name) => {
  switch (name) {
    case 'default-light':
    case 'default-dark': {
      const mode = name === 'default-light' ? 'light' : 'dark';
      return { name, ...site[mode], notes: [`GitBook's default: the site stylesheet's ${mode} colours, never emitted`] };
    }
    case 'monochrome-light':
    case 'monochrome-dark': {
      const s = site[name === 'monochrome-light' ? 'light' : 'dark'];
      return {
        name,
        background: s.background,
        foreground: s.foreground,
        comment: s.comment,
        string: s.foreground,
        number: s.foreground,
        keyword: s.foreground,
        notes: ['no token colours: the site stylesheet\'s code colours, comments muted'],
      };
    }
    default: {
      const theme = themes.get(name);
      if (!theme) throw new Error(`${PACKAGE}@${version} has no theme ${name}`);
      return { name, ...palette(name, theme) };
    }
  }
});

let rs = `//! Code colour themes: each name \`styling.codeTheme\` accepts (the enum of
//! \`quire-sites\`' customization schema) as the colours the server-side
//! highlighter's marks take (comments \`c\`, strings \`s\`, numbers \`n\`,
//! keywords \`k\`) and the code block's background and text.
//!
//! GENERATED by \`crates/quire-site-render/scripts/code-themes.mjs\` from the
//! npm package \`${PACKAGE}@${version}\` (and \`src/site.css\` for GitBook's own
//! \`default-*\` and \`monochrome-*\`). Do not edit: run
//! \`node crates/quire-site-render/scripts/code-themes.mjs\` (the script says
//! how each colour is chosen and what falls back to what).

/// One theme's colours, each \`#rrggbb\` or \`#rrggbbaa\`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodePalette {
    pub name: &'static str,
    pub background: &'static str,
    pub foreground: &'static str,
    pub comment: &'static str,
    pub string: &'static str,
    pub number: &'static str,
    pub keyword: &'static str,
}

/// Every theme, in the schema's order.
pub static THEMES: &[CodePalette] = &[
`;
for (const r of rows) {
  for (const note of r.notes) rs += `    // ${r.name}: ${note}\n`;
  rs += `    CodePalette {\n        name: "${r.name}",\n`;
  for (const k of ['background', 'foreground', 'comment', 'string', 'number', 'keyword']) {
    rs += `        ${k}: "${r[k]}",\n`;
  }
  rs += '    },\n';
}
rs += `];

/// A theme by its name.
pub fn palette(name: &str) -> Option<&'static CodePalette> {
    THEMES.iter().find(|p| p.name == name)
}

/// The colours a site's choice puts on its code: none for GitBook's
/// defaults (\`default-light\`, \`default-dark\`: the stylesheet's own
/// colours, in either mode) or a name that is no theme.
pub fn chosen(name: &str) -> Option<&'static CodePalette> {
    palette(name).filter(|p| !p.name.starts_with("default-"))
}

#[cfg(test)]
#[path = "code_themes_tests.rs"]
mod tests;
`;
writeFileSync(outPath, rs);
console.log(`wrote ${outPath}: ${rows.length} themes from ${PACKAGE}@${version}`);
