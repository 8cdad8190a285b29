// Compose's small value grammars, read as docker compose reads them: durations ("1m30s"), byte
// sizes ("512M", "1.5g"), CPU counts ("0.5"), shell-like word splitting of string commands, and
// `${NAME}` interpolation. Pure: no I/O.

const DURATION_UNITS: Record<string, number> = { us: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/** "1m30s", "10s", "500ms" → whole seconds (at least 1 when positive); null when it is not a duration */
export function durationSeconds(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.round(value);
  if (typeof value !== 'string' || value.trim() === '') return null;
  const parts = [...value.trim().matchAll(/(\d+(?:\.\d+)?)(us|ms|s|m|h)/g)];
  if (parts.map((p) => p[0]).join('') !== value.trim()) return null;
  const seconds = parts.reduce((sum, p) => sum + Number(p[1]) * DURATION_UNITS[p[2]!]!, 0);
  return seconds > 0 ? Math.max(1, Math.round(seconds)) : 0;
}

const BYTE_UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, kb: 1024, m: 1024 ** 2, mb: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3 };

/** "512M", "1.5g", "268435456" → MiB, rounded up; null when it is not a size */
export function sizeMiB(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return Math.ceil(value / 1024 ** 2);
  if (typeof value !== 'string') return null;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(value);
  const unit = m ? BYTE_UNITS[m[2]!.toLowerCase()] : undefined;
  if (!m || unit === undefined) return null;
  const mib = Math.ceil((Number(m[1]) * unit) / 1024 ** 2);
  return mib > 0 ? mib : null;
}

/** "0.5", 2 → millicores; null when it is not a positive number */
export function cpuMilli(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : NaN;
  return Number.isFinite(n) && n > 0 ? Math.max(1, Math.round(n * 1000)) : null;
}

/** a command as compose splits a string: words on blanks, single and double quotes, backslash escapes */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote === "'") {
      if (c === "'") quote = null; else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && i + 1 < text.length && '"\\$`'.includes(text[i + 1]!)) word += text[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c; inWord = true;
    } else if (c === '\\' && i + 1 < text.length) {
      word += text[++i]; inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = ''; inWord = false;
    } else {
      word += c; inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

export interface Interpolated {
  value: string;
  /** names that were neither in the environment given nor defaulted in the text */
  missing: string[];
}

/**
 * Compose's interpolation: `$$` is a dollar, `${NAME}`, `$NAME`, `${NAME:-default}`/`${NAME-default}`,
 * `${NAME:?error}`/`${NAME?error}` (the error is reported as a missing name), `${NAME:+alt}`/`${NAME+alt}`.
 */
export function interpolate(text: string, env: ReadonlyMap<string, string>): Interpolated {
  const missing: string[] = [];
  const value = text.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?+])((?:[^}\\]|\\.)*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (whole, braced: string | undefined, colon: string | undefined, op: string | undefined, arg: string | undefined, bare: string | undefined) => {
      if (whole === '$$') return '$';
      const name = (braced ?? bare)!;
      const set = env.get(name);
      const present = set !== undefined && (colon !== ':' || set !== '');
      if (op === '-') return present ? set! : interpolate(arg ?? '', env).value;
      if (op === '+') return present ? interpolate(arg ?? '', env).value : '';
      if (!present) missing.push(name);
      return set ?? '';
    });
  return { value, missing };
}

/** the lines of a .env file (env_file): KEY=VALUE, `export ` prefixes, comments, quoted values */
export function parseEnvFile(text: string): Array<{ key: string; value: string | null; line: number }> {
  const out: Array<{ key: string; value: string | null; line: number }> = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const m = /^(?:export\s+)?([^=\s]+)\s*(?:=(.*))?$/.exec(line);
    if (!m) return;
    let value = m[2];
    if (value === undefined) { out.push({ key: m[1]!, value: null, line: index + 1 }); return; }
    value = value.trim();
    const q = value[0];
    if ((q === '"' || q === "'") && value.length >= 2 && value.endsWith(q)) {
      value = value.slice(1, -1);
      if (q === '"') value = value.replace(/\\n/g, '\n').replace(/\\(["\\])/g, '$1');
    } else {
      value = value.replace(/\s+#.*$/, '');
    }
    out.push({ key: m[1]!, value, line: index + 1 });
  });
  return out;
}
