// YAML for the manifest endpoint, written by the `yaml` library: JSON-compatible values,
// multi-document output separated by `---`. A string (key or value) is left plain only when it
// reads back as the same string under both YAML 1.2 and YAML 1.1 (what Kubernetes' parser
// follows: there `on`, `yes`, `y`, `off` are booleans); otherwise it is double-quoted, so
// `null`, `true`, `yes`, `on`, `1e3`, `0o17`, `""`, `-` or a `<<` key never change on the way.
import { Document, isScalar, parse, visit } from 'yaml';

const verdicts = new Map<string, boolean>();

function readsBackAsItself(text: string): boolean {
  const known = verdicts.get(text);
  if (known !== undefined) return known;
  let same: boolean;
  try {
    same = parse(text, { version: '1.2', logLevel: 'silent' }) === text && parse(text, { version: '1.1', logLevel: 'silent' }) === text;
  } catch {
    same = false;
  }
  if (verdicts.size < 10_000) verdicts.set(text, same);
  return same;
}

function toYamlDocument(value: unknown): string {
  const doc = new Document(value, { version: '1.2' });
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && !readsBackAsItself(node.value)) node.type = 'QUOTE_DOUBLE';
    },
  });
  // keys are scalars too; a plain `<<` key is YAML 1.1's merge key, so it is quoted as well
  visit(doc, {
    Pair(_key, pair) {
      const k = pair.key;
      if (isScalar(k) && typeof k.value === 'string' && (k.value === '<<' || !readsBackAsItself(k.value))) k.type = 'QUOTE_DOUBLE';
    },
  });
  return doc.toString({ lineWidth: 0 });
}

export function toYaml(documents: unknown[]): string {
  return documents.map(toYamlDocument).join('---\n');
}
