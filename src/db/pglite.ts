// Embedded driver: PGlite (PostgreSQL compiled to WebAssembly) persisted in DATA_DIR/pgdata,
// or in memory for tests. One connection on the Node thread: keep transactions short.
import { PGlite, types } from '@electric-sql/pglite';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import type { Db, Queryable } from './types.ts';
import { withCommitHooks } from './commit-hooks.ts';
import { NO_CONSTRAINT_MESSAGES, translateDbError, type ConstraintMessages } from './errors.ts';
import { preparedRunner, type PreparedRunner } from './pglite-prepared.ts';
import { discardPgliteTemplate, pgliteTemplatePath, readPgliteTemplate } from './pglite-template.ts';
import { timestamptzReader } from './timestamps.ts';

type Runner = { query: PGlite['query']; exec: PGlite['exec'] };

/** `prepared`: statements run as named prepared statements (pglite-prepared.ts) */
function queryable(runner: Runner, prepared: PreparedRunner, inTransaction: boolean, constraints: ConstraintMessages): Queryable {
  return {
    async query<R>(text: string, params?: readonly unknown[]): Promise<R[]> {
      try {
        const res = await prepared.query<R>(text, params, inTransaction, () => runner.query<R>(text, params as unknown[] | undefined));
        return res.rows;
      } catch (err) {
        throw translateDbError(err, constraints);
      }
    },
    async exec(sql: string): Promise<void> {
      try {
        await runner.exec(sql);
      } catch (err) {
        throw translateDbError(err, constraints);
      }
    },
  };
}

/**
 * PGlite's WebAssembly runs on V8's baseline compiler (Liftoff) only. With tier-up on, V8's
 * optimizing compiler took about 500 MiB for half a second while a start ran its first statements
 * (VmHWM 750 MiB for an idle 250 MiB), for queries about 11 % faster afterwards (decision 0708).
 * Set before the module is compiled; it applies to the process's later WebAssembly too.
 */
function keepWebAssemblyAtBaseline(): void {
  setFlagsFromString('--no-wasm-tier-up');
  setFlagsFromString('--no-wasm-dynamic-tiering');
}

/**
 * How berth starts PGlite: its defaults plus small shared buffers, so that the embedded database
 * idles in a modest amount of memory (PostgreSQL's 128 MB default is resident in PGlite's
 * WebAssembly memory from the start).
 */
export const PGLITE_START_PARAMS: string[] = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

/** timestamptz as pg reads it (timestamps.ts), PGlite's own reader for other shapes */
const readTimestamptz = timestamptzReader(types.parsers[types.TIMESTAMPTZ]!);

export interface OpenPgliteOptions {
  /** a cluster to start from (a backup being restored); the data directory must be empty */
  loadDataDir?: Blob;
  /** the initdb template an empty cluster starts from (pglite-template.ts); false: run initdb */
  template?: string | false;
  /** the messages of violated constraints (errors.ts); unset: none */
  constraints?: ConstraintMessages;
}

/** `location` exists (openPglite makes it); undefined: in memory, always empty */
function isEmptyCluster(location: string | undefined): boolean {
  return location === undefined || readdirSync(location).length === 0;
}

function createPglite(location: string | undefined, loadDataDir: Blob | undefined): Promise<PGlite> {
  return PGlite.create({
    dataDir: location,
    loadDataDir,
    startParams: PGLITE_START_PARAMS,
    parsers: { [types.INT8]: (v: string) => Number(v), [types.TIMESTAMPTZ]: readTimestamptz },
  });
}

/**
 * An empty cluster starts from the template when there is one; one PGlite cannot load is
 * discarded and initdb runs instead (the half-loaded directory is emptied first).
 */
async function createFromTemplate(location: string | undefined, template: string): Promise<PGlite> {
  const tarball = readPgliteTemplate(template);
  if (!tarball) return createPglite(location, undefined);
  try {
    return await createPglite(location, tarball);
  } catch {
    discardPgliteTemplate(template);
    if (location) {
      rmSync(location, { recursive: true, force: true });
      mkdirSync(location, { recursive: true });
    }
    return createPglite(location, undefined);
  }
}

/** dataDir: a directory, or 'memory://' for a throwaway in-memory database */
export async function openPglite(dataDir: string, options: OpenPgliteOptions = {}): Promise<Db> {
  keepWebAssemblyAtBaseline();
  let location: string | undefined;
  if (dataDir !== 'memory://') {
    location = join(resolve(dataDir), 'pgdata');
    mkdirSync(location, { recursive: true });
  }
  const template = options.template ?? pgliteTemplatePath();
  const pglite = options.loadDataDir || template === false || !isEmptyCluster(location)
    ? await createPglite(location, options.loadDataDir)
    : await createFromTemplate(location, template);
  const prepared = preparedRunner(pglite);
  const constraints = options.constraints ?? NO_CONSTRAINT_MESSAGES;
  const base = queryable(pglite, prepared, false, constraints);
  return {
    kind: 'pglite',
    native: { kind: 'pglite', pglite },
    query: base.query,
    async transaction(fn) {
      try {
        let committed = () => {};
        const result = await pglite.transaction((t) => {
          const hooked = withCommitHooks(queryable(t, prepared, true, constraints));
          committed = hooked.committed;
          return fn(hooked.tx);
        });
        committed();
        return result;
      } catch (err) {
        throw translateDbError(err, constraints);
      }
    },
    exec: base.exec,
    async ping() {
      await base.query('select 1');
    },
    async close() {
      if (!pglite.closed) await pglite.close();
    },
  };
}
