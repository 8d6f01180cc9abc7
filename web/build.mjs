// Builds the viewer into web/dist (committed: the API serves it as is, so a
// fresh clone, `npm start` and the Docker image need no build step).
// `node web/build.mjs --check` builds in memory and fails when web/dist is
// stale, as `npm run lint:web` and the test suite do.
import { build } from 'esbuild';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const check = process.argv.includes('--check');

export async function buildViewer() {
  const result = await build({
    entryPoints: [here('./src/main.tsx')],
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022', 'chrome111', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    write: false,
    outfile: here('./dist/app.js'),
    logLevel: 'silent',
  });
  const [js] = result.outputFiles;
  return {
    'app.js': js.text,
    'app.css': await readFile(here('./src/app.css'), 'utf8'),
    'index.html': await readFile(here('./src/index.html'), 'utf8'),
  };
}

const files = await buildViewer();
if (check) {
  const stale = [];
  for (const [name, text] of Object.entries(files)) {
    const committed = await readFile(here(`./dist/${name}`), 'utf8').catch(() => null);
    if (committed !== text) stale.push(name);
  }
  if (stale.length) {
    console.error(`web/dist is stale (${stale.join(', ')}): run \`npm run build:web\` and commit web/dist`);
    process.exit(1);
  }
} else {
  await mkdir(here('./dist'), { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(here(`./dist/${name}`), text);
  console.log(`web/dist: ${Object.entries(files).map(([n, t]) => `${n} ${(t.length / 1024).toFixed(1)} kB`).join(', ')}`);
}
