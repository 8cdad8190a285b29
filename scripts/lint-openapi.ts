// `npm run lint:openapi`: writes the OpenAPI document berth serves (the `openapi` command, on a
// throw-away data directory) and lints it with Spectral's OpenAPI ruleset (.spectral.yaml) and
// Redocly's recommended rules (redocly.yaml). Fails on any error; warnings are printed (the
// accepted ones are listed with their reasons in docs/openapi-lint.md).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const bin = (name: string) => join(root, 'node_modules', '.bin', name);
const dir = mkdtempSync(join(tmpdir(), 'berth-openapi-'));
let failed = false;
try {
  const doc = spawnSync(process.execPath, [join(root, 'src/cli/main.ts'), 'openapi'], {
    cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, DATA_DIR: join(dir, 'data'), ENCRYPTION_KEY: randomBytes(32).toString('base64'), LOG_LEVEL: 'silent', DATABASE_URL: '' },
  });
  if (doc.status !== 0) throw new Error(`berth openapi failed: ${doc.stderr}`);
  const file = join(dir, 'openapi.json');
  writeFileSync(file, doc.stdout);
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  for (const [name, args] of [
    ['spectral', ['lint', file, '--ruleset', join(root, '.spectral.yaml'), '--fail-severity', 'error', '--format', 'text']],
    ['redocly', ['lint', file, '--config', join(root, 'redocly.yaml'), '--format', 'stylish']],
  ] as const) {
    const r = spawnSync(bin(name), [...args], { cwd: root, encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = `${r.stdout}${r.stderr}`;
    const counts = new Map<string, number>();
    for (const m of out.matchAll(/\b(error|warning)\s+([a-z0-9-]+)/g)) counts.set(`${m[1]} ${m[2]}`, (counts.get(`${m[1]} ${m[2]}`) ?? 0) + 1);
    process.stdout.write(`${name}: exit ${r.status}; ${[...counts].map(([k, n]) => `${n}× ${k}`).join(', ') || 'no findings'}\n`);
    if (r.status !== 0) {
      failed = true;
      process.stdout.write(out.split('\n').filter((l) => /error/i.test(l)).slice(0, 50).join('\n') + '\n');
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
