// A named statement for the `pg` driver that learns its result's columns once per connection
// (issue 15). As shipped, pg asks PostgreSQL to describe the result at every execution of a
// prepared statement (a Describe message out, a RowDescription back, parsed into field objects)
// and builds a parser table and a row template from it (pg's Result#addFields: ~2.4 µs for twelve
// columns), for a shape that cannot change while the statement is prepared on that connection:
// PostgreSQL refuses to run it if its result type changed ("cached plan must not change result
// type"). Here the first execution on a connection describes it as before and keeps its shape
// (column names and their readers) with the connection; later executions send Bind, Execute and
// Sync only, and rows are built from the kept shape. Everything else (parsing the statement once
// per connection, errors, the pool, the callback) is pg's own Query.
import pg from 'pg';
import { createHash } from 'node:crypto';

type Reader = (text: string) => unknown;
interface Field { name: string; dataTypeID: number }

/** the columns of a statement's result and how each is read */
class Shape {
  readonly #names: string[];
  readonly #readers: Reader[];

  constructor(fields: readonly Field[]) {
    this.#names = fields.map((f) => f.name);
    // results come back as text: the Bind below asks for no binary column
    this.#readers = fields.map((f) => pg.types.getTypeParser(f.dataTypeID, 'text') as Reader);
  }

  row(values: ReadonlyArray<string | null>): Record<string, unknown> {
    const row: Record<string, unknown> = {};
    const names = this.#names;
    const readers = this.#readers;
    for (let i = 0; i < values.length; i++) {
      const value = values[i];
      row[names[i]!] = value === null ? null : readers[i]!(value);
    }
    return row;
  }
}

// pg's connection as its Query uses it (not in pg's type declarations)
interface Connection {
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
  parse(m: { text: string; name: string }): void;
  bind(m: { portal: string; statement: string; values: unknown[]; valueMapper: unknown }): void;
  describe(m: { type: 'P'; name: string }): void;
  execute(m: { portal: string }): void;
  sync(): void;
}

// the parts of pg's Query this class reads or overrides (not in pg's type declarations)
interface QueryInternals {
  _result: { rows: unknown[] };
  _canceledDueToError: unknown;
}

/** each connection's statements' shapes, by statement name */
const shapesOf = new WeakMap<Connection, Map<string, Shape>>();
const prepareValue = (pg as unknown as { utils: { prepareValue: unknown } }).utils.prepareValue;

type Callback = (err: Error | undefined, result: { rows: unknown[] }) => void;
interface Runner { query(statement: NamedStatement, callback: Callback): unknown }

/** a statement's name: a hash of its text (the API's statements are static texts) */
const statementNames = new Map<string, string>();
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = 's' + createHash('sha1').update(text).digest('hex').slice(0, 20);
    statementNames.set(text, name);
  }
  return name;
}

/** runs `text` as a named statement on a pool or one of its clients; its rows */
export function runNamed<R>(client: pg.Pool | pg.PoolClient, text: string, values: unknown[]): Promise<R[]> {
  return new Promise((resolve, reject) => {
    (client as unknown as Runner).query(new NamedStatement(statementName(text), text, values), (err, result) => (err ? reject(err) : resolve(result.rows as R[])));
  });
}

class NamedStatement extends pg.Query {
  // pg's own fields (its submit() reads them), not in its type declarations
  declare name: string;
  declare text: string;
  declare values: unknown[];
  #shapes: Map<string, Shape> | undefined;
  #shape: Shape | undefined;

  constructor(name: string, text: string, values: unknown[]) {
    // a string is pg's cheap path (a config object is copied property by property)
    super(text);
    this.name = name;
    this.values = values;
  }

  /** pg's extended-protocol exchange (Query#prepare), with the Describe left out once the shape is known */
  prepare(connection: Connection): void {
    const name = this.name;
    let shapes = shapesOf.get(connection);
    if (!shapes) shapesOf.set(connection, (shapes = new Map()));
    this.#shapes = shapes;
    this.#shape = shapes.get(name);
    if (connection.parsedStatements[name] === undefined && connection.submittedNamedStatements[name] === undefined) {
      connection.parse({ text: this.text, name });
      connection.submittedNamedStatements[name] = this.text;
    }
    try {
      connection.bind({ portal: '', statement: name, values: this.values, valueMapper: prepareValue });
    } catch (err) {
      // a value that cannot be sent (nothing of the Bind was): the statement stays prepared (pg
      // would close it here and still list it as parsed), and the error is the query's answer
      // once the connection is ready again, through pg's own path for errors found in rows
      (this as unknown as QueryInternals)._canceledDueToError = err;
      connection.sync();
      return;
    }
    if (!this.#shape) connection.describe({ type: 'P', name: '' });
    connection.execute({ portal: '' });
    connection.sync();
  }

  handleRowDescription(message: { fields: Field[] }): void {
    this.#shape = new Shape(message.fields);
    this.#shapes!.set(this.name, this.#shape);
  }

  handleDataRow(message: { fields: Array<string | null> }): void {
    const self = this as unknown as QueryInternals;
    if (self._canceledDueToError) return;
    try {
      self._result.rows.push(this.#shape!.row(message.fields));
    } catch (err) {
      self._canceledDueToError = err;
    }
  }
}
