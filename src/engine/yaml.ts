// A tiny YAML emitter for the manifest endpoint: JSON-compatible values only (objects, arrays,
// strings, numbers, booleans, null), multi-document output separated by `---`. Strings are
// always double-quoted JSON strings, which YAML reads as the same strings.

function scalar(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(String(v));
}

function key(k: string): string {
  return /^[A-Za-z_][A-Za-z0-9_./-]*$/.test(k) ? k : JSON.stringify(k);
}

function emit(v: unknown, indent: string): string {
  if (Array.isArray(v)) {
    if (v.length === 0) return ' []';
    return v.map((item) => {
      const inner = emit(item, indent + '  ');
      return `\n${indent}-${inner.startsWith('\n') ? inner.replace(/^\n\s*/, ' ') : inner}`;
    }).join('');
  }
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    if (entries.length === 0) return ' {}';
    return entries.map(([k, x]) => `\n${indent}${key(k)}:${emit(x, indent + '  ')}`).join('');
  }
  return ' ' + scalar(v);
}

export function toYamlDocument(value: unknown): string {
  return emit(value, '').replace(/^\n/, '') + '\n';
}

export function toYaml(documents: unknown[]): string {
  return documents.map(toYamlDocument).join('---\n');
}
