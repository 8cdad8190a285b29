// Named prepared statements on PGlite. PGlite's own query() sends parse, describe, bind, describe,
// execute and sync as six separate exchanges with the WebAssembly backend and re-parses and
// re-plans the text every time (3.1 ms against 0.7 ms per indexed select, measured: see
// docs/performance.md). Here each statement text is parsed once under a name (PGlite is one
// session, so names live as long as the database), and each call is a single exchange:
// bind + describe portal + execute + sync. Results are parsed by PGlite's own parseResults with
// the instance's parsers and parameters serialized by its serializers, as query() does.
// Texts beyond MAX_STATEMENTS, and a text whose table changed under it, go through query().
// No syncToFs after a statement: berth opens PGlite on Node's file system or in memory, whose
// syncToFs does nothing (PostgreSQL's writes go straight to the files; it matters only for
// IndexedDB in a browser), and asking cost a third lock round per statement (decision 0711).
import { parse as pgliteParse, protocol, type PGlite, type Results } from '@electric-sql/pglite';

const MAX_STATEMENTS = 1000;

/** the internals of PGlite this relies on (public methods, but not in its type declarations) */
interface PgliteInternals {
  _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T>;
  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T>;
  serializers: Record<number, (v: unknown) => string>;
  parsers: Parameters<typeof pgliteParse.parseResults>[1];
  execProtocol(message: Uint8Array, options?: { syncToFs?: boolean }): Promise<{ messages: Array<{ name: string; dataTypeIDs?: number[] }> }>;
}

interface Prepared { name: string; paramTypes: number[] }

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export interface PreparedRunner {
  /** one statement; `inTransaction`: called from inside pglite.transaction() (its lock is held);
   * `fallback`: the same statement through PGlite's query() */
  query<R>(text: string, params: readonly unknown[] | undefined, inTransaction: boolean, fallback: () => Promise<Results<R>>): Promise<Results<R>>;
}

export function preparedRunner(pglite: PGlite): PreparedRunner {
  const pg = pglite as unknown as PgliteInternals;
  const statements = new Map<string, Prepared | null>(); // null: use query()
  const { serialize } = protocol;

  /** parses and describes `text` under a new name; PostgreSQL's refusal (a syntax error, an
   * unknown column) is thrown as query() would throw it */
  async function prepare(text: string): Promise<Prepared> {
    const name = `berth_${statements.size}`;
    const res = await pg.execProtocol(concat([
      serialize.parse({ name, text, types: [] }), serialize.describe({ type: 'S', name }), serialize.sync(),
    ]), { syncToFs: false });
    const description = res.messages.find((m) => m.name === 'parameterDescription');
    return { name, paramTypes: description?.dataTypeIDs ?? [] };
  }

  async function run<R>(text: string, params: readonly unknown[]): Promise<Results<R> | undefined> {
    return pg._runExclusiveQuery(async () => {
      let st = statements.get(text);
      if (st === undefined) {
        if (statements.size >= MAX_STATEMENTS) return undefined;
        st = await prepare(text);
        statements.set(text, st);
      }
      if (st === null) return undefined;
      const values = params.map((v, i) => {
        if (v === null || v === undefined) return null;
        const serializer = pg.serializers[st.paramTypes[i]!];
        return serializer ? serializer(v) : String(v);
      });
      const res = await pg.execProtocol(concat([
        serialize.bind({ statement: st.name, values }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync(),
      ]), { syncToFs: false });
      return pgliteParse.parseResults(res.messages as never, pg.parsers)[0] as Results<R>;
    });
  }

  return {
    async query<R>(text: string, params: readonly unknown[] | undefined, inTransaction: boolean, fallback: () => Promise<Results<R>>): Promise<Results<R>> {
      let attempt: Results<R> | undefined;
      try {
        attempt = inTransaction
          ? await run<R>(text, params ?? [])
          : await pg._runExclusiveTransaction(() => run<R>(text, params ?? []));
      } catch (err) {
        // a table changed under a prepared statement (a migration): this text goes through query()
        if ((err as { code?: string }).code !== '0A000') throw err;
        statements.set(text, null);
      }
      return attempt ?? fallback();
    },
  };
}
