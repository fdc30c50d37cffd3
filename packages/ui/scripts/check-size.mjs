// The first load of /ui must stay within 200 kB of JavaScript and CSS gzipped (issue 20, point 9):
// this runs after `vite build` and fails the build otherwise. It counts every script and
// stylesheet of the build, the lazily loaded pages included: a visitor's first page (any of
// them, the chat at /ui among them) loads the shell and that page, so the whole build is an upper
// bound that cannot be dodged by moving code into a lazy chunk.
import { readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const LIMIT = 200_000;
const assets = fileURLToPath(new URL('../../runtime/ui-dist/assets/', import.meta.url));
const files = readdirSync(assets).filter((name) => /\.(js|css)$/.test(name));
if (files.length === 0) {
  process.stderr.write('check-size: the build has no script or stylesheet\n');
  process.exit(1);
}
let total = 0;
for (const name of files) {
  const size = gzipSync(readFileSync(`${assets}${name}`), { level: 9 }).length;
  total += size;
  process.stdout.write(`  ${name}  ${(size / 1000).toFixed(1)} kB gzipped\n`);
}
process.stdout.write(`first load at most: ${(total / 1000).toFixed(1)} kB of JS and CSS gzipped (limit ${LIMIT / 1000} kB)\n`);
if (total > LIMIT) {
  process.stderr.write(`check-size: the JS and CSS of /ui come to more than ${LIMIT / 1000} kB gzipped\n`);
  process.exit(1);
}
