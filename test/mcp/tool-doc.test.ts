// The README's table of MCP tools is the catalogue's (npm run docs:mcp), and every tool is
// described for a model: a title, a description of some length, an input schema that is an object.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { README, withToolTable } from '../../scripts/mcp-tools-doc.ts';
import { TOOLS } from '../../src/mcp/catalog.ts';

test('the README lists every MCP tool as the catalogue says (run npm run docs:mcp when this fails)', () => {
  const readme = readFileSync(README, 'utf8');
  assert.equal(withToolTable(readme), readme);
  for (const t of TOOLS) assert.ok(readme.includes(`| \`${t.name}\` |`), t.name);
});

test('every tool has a unique name, a title, a description a model can choose by and an object schema', () => {
  assert.equal(new Set(TOOLS.map((t) => t.name)).size, TOOLS.length);
  for (const t of TOOLS) {
    assert.match(t.name, /^[a-z][a-z_]{2,40}$/);
    assert.ok(t.title.length > 3 && t.description.length >= 40, t.name);
    assert.equal(t.input.type, 'object', t.name);
    if (t.action === 'write') assert.ok(t.hints && typeof t.hints.destructiveHint === 'boolean', `${t.name} says whether it is destructive`);
  }
});
