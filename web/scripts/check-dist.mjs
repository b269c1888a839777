// Proves the committed build (dist/) is what the sources build: the same
// files, byte for byte, as a fresh build in another folder; and each
// committed gzip and brotli copy decompresses to its file.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gunzipSync, brotliDecompressSync } from 'node:zlib';

const [committed, fresh] = process.argv.slice(2);

function list(root, dir = root, out = []) {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) list(root, path, out);
    else out.push(relative(root, path));
  }
  return out;
}

const a = list(committed);
const b = list(fresh);
const problems = [];
for (const file of new Set([...a, ...b])) {
  if (!a.includes(file)) problems.push(`${file}: built but not committed`);
  else if (!b.includes(file)) problems.push(`${file}: committed but no longer built`);
  else if (file.endsWith('.gz') || file.endsWith('.br')) {
    const plain = readFileSync(join(committed, file.slice(0, -3)));
    const packed = readFileSync(join(committed, file));
    const unpacked = file.endsWith('.gz') ? gunzipSync(packed) : brotliDecompressSync(packed);
    if (!unpacked.equals(plain)) problems.push(`${file}: does not decompress to its file`);
  } else if (!readFileSync(join(committed, file)).equals(readFileSync(join(fresh, file)))) {
    problems.push(`${file}: differs from a fresh build`);
  }
}
if (problems.length) {
  console.error(`web/dist is not what web/ builds (run \`npm run build\` in web/ and commit dist/):\n${problems.join('\n')}`);
  process.exit(1);
}
console.log(`web/dist matches a fresh build (${a.length} files)`);
