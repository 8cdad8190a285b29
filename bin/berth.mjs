#!/usr/bin/env -S node --max-semi-space-size=4 --heap-growing-percent=20
// The `berth` command. berth runs on Node 24 (TypeScript sources, type stripping); the project
// carries that runtime as the `node` npm package, so an older system Node re-executes with it
// with the same Node options (the shebang's server flags) and forwarding signals, so Ctrl-C and
// `kill` reach the real process. On Node 24 it runs in-process.
// `npm start` runs this file too: it is plain JavaScript so that Node's compile cache is on before
// the first TypeScript file loads. Every .ts file, main.ts included, is then read back already
// stripped from the cache, and Node never loads its type stripper (amaro, 17 MiB of WebAssembly
// resident for the life of the process; decision 0705).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import nodeModule from 'node:module'; // a default import: older Node has no enableCompileCache export
import { fileURLToPath } from 'node:url';

nodeModule.enableCompileCache?.();

const main = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const major = Number(process.versions.node.split('.')[0]);
if (major >= 24) {
  process.argv.splice(1, 1, main);
  await import(main);
} else {
  const bundled = fileURLToPath(new URL('../node_modules/node/bin/node', import.meta.url));
  if (!existsSync(bundled)) {
    process.stderr.write('berth: needs Node 24; run `npm install` in the project to fetch it\n');
    process.exit(1);
  }
  const child = spawn(bundled, [...process.execArgv, main, ...process.argv.slice(2)], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal === 'SIGINT' ? 130 : 1)));
}
