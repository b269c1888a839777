#!/usr/bin/env node
// Writes `icons.tsv.br`, the icons `quire-icons` embeds, from the npm
// registry's `@fortawesome/fontawesome-free` (and copies its LICENSE.txt).
//
//   node crates/quire-icons/generate.mjs [version]
//
// The package is fetched with `npm pack` into a temporary directory; only
// its `metadata/icon-families.json` is read: for every icon of the classic
// family, its style (s: solid, r: regular, b: brands), the width of its
// view box (every height is 512) and its path data, one line each
// (`name\tstyle\twidth\tpath`), then its aliases (`alias\t=\tname`), the
// lines sorted, the text compressed with Brotli (the text is 1.4 MB, the
// path data having little to leave out; compressed it is about 390 kB).

import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";

const VERSION = process.argv[2] ?? "7.3.1";
const here = dirname(fileURLToPath(import.meta.url));
const temp = mkdtempSync(join(tmpdir(), "quire-icons-"));
try {
  execFileSync("npm", ["pack", `@fortawesome/fontawesome-free@${VERSION}`, "--silent"], {
    cwd: temp,
    stdio: ["ignore", "ignore", "inherit"],
  });
  const tarball = readdirSync(temp).find((f) => f.endsWith(".tgz"));
  execFileSync("tar", ["xzf", tarball], { cwd: temp });
  const pkg = join(temp, "package");
  const families = JSON.parse(readFileSync(join(pkg, "metadata", "icon-families.json"), "utf8"));

  const name = /^[a-z0-9-]+$/;
  const path = /^[0-9A-Za-z .,-]+$/;
  const lines = [];
  for (const [icon, info] of Object.entries(families)) {
    if (!name.test(icon)) throw new Error(`unexpected icon name ${icon}`);
    for (const [style, svg] of Object.entries(info.svgs?.classic ?? {})) {
      const letter = { solid: "s", regular: "r", brands: "b" }[style];
      if (!letter) continue;
      const [x, y, width, height] = svg.viewBox;
      if (x !== 0 || y !== 0 || height !== 512 || !Number.isInteger(width)) {
        throw new Error(`unexpected view box of ${icon}: ${svg.viewBox}`);
      }
      if (typeof svg.path !== "string" || !path.test(svg.path)) {
        throw new Error(`unexpected path of ${icon} (${style})`);
      }
      lines.push(`${icon}\t${letter}\t${width}\t${svg.path}`);
    }
  }
  // Aliases (`home` for `house`), where no icon has the name already.
  const aliased = new Map();
  for (const [icon, info] of Object.entries(families)) {
    for (const alias of info.aliases?.names ?? []) {
      if (name.test(alias) && !(alias in families) && !aliased.has(alias)) aliased.set(alias, icon);
    }
  }
  for (const [alias, icon] of aliased) lines.push(`${alias}\t=\t${icon}`);
  lines.sort();
  const text = `# Font Awesome Free ${VERSION} (icons: CC BY 4.0), from its metadata/icon-families.json\n${lines.join("\n")}\n`;
  const compressed = zlib.brotliCompressSync(Buffer.from(text), {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
      [zlib.constants.BROTLI_PARAM_LGWIN]: 24,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: text.length,
    },
  });
  writeFileSync(join(here, "icons.tsv.br"), compressed);
  copyFileSync(join(pkg, "LICENSE.txt"), join(here, "LICENSE.txt"));
  console.log(`icons.tsv.br: ${lines.length} lines, ${text.length} bytes of text, ${compressed.length} compressed`);
} finally {
  rmSync(temp, { recursive: true, force: true });
}
