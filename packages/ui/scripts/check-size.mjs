// The first load of /ui (the page's own script and stylesheet, and every chunk it preloads) must
// stay within 200 kB gzipped (issue 20, point 9): this runs after `vite build` and fails the build
// otherwise. Lazily loaded pages are not counted: a visitor downloads them only when opening them.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const LIMIT = 200_000;
const out = fileURLToPath(new URL('../../runtime/ui-dist/', import.meta.url));
const html = readFileSync(`${out}index.html`, 'utf8');
const urls = [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*\shref)="\/ui\/(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]);
if (urls.length === 0) {
  process.stderr.write('check-size: index.html references no script or stylesheet\n');
  process.exit(1);
}
let total = 0;
for (const url of urls) {
  const size = gzipSync(readFileSync(`${out}${url}`), { level: 9 }).length;
  total += size;
  process.stdout.write(`  ${url}  ${(size / 1000).toFixed(1)} kB gzipped\n`);
}
process.stdout.write(`first load: ${(total / 1000).toFixed(1)} kB gzipped (limit ${LIMIT / 1000} kB)\n`);
if (total > LIMIT) {
  process.stderr.write(`check-size: the first load of /ui is over ${LIMIT / 1000} kB gzipped\n`);
  process.exit(1);
}
