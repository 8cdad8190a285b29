#!/usr/bin/env node
// The `berth` command. berth runs on Node 24 (TypeScript sources, type stripping); the project
// carries that runtime as the `node` npm package, so an older system Node re-executes with it.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const major = Number(process.versions.node.split('.')[0]);
let node = process.execPath;
if (major < 24) {
  const bundled = fileURLToPath(new URL('../node_modules/node/bin/node', import.meta.url));
  if (!existsSync(bundled)) {
    process.stderr.write('berth: needs Node 24; run `npm install` in the project to fetch it\n');
    process.exit(1);
  }
  node = bundled;
}
const result = spawnSync(node, [main, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(result.status ?? 1);
