/** Rewrites the README's table of model calls from the catalogue (src/calls). */
import { readFileSync, writeFileSync } from 'node:fs';
import { withCatalogueTable } from '../src/calls/table';

const path = new URL('../README.md', import.meta.url);
writeFileSync(path, withCatalogueTable(readFileSync(path, 'utf8')));
console.log('README calls table written');
