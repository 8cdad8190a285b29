// What runs inside a database's container to dump, restore, count and wait for it, per type
// (decision 0720), pure. Credentials reach the tools through the exec's environment only
// (PGPASSWORD, MYSQL_PWD, REDISCLI_AUTH, a MongoDB URI written to a 0600 config file by a shell
// builtin), never as arguments a `ps` in the container would show. Scripts are POSIX sh.
import type { DatabasePlan } from '../plan.ts';

/** one command run by `docker exec`: its argv and the environment it gets */
export interface ExecCommand { cmd: string[]; env: Record<string, string> }

const sh = (script: string, env: Record<string, string>): ExecCommand => ({ cmd: ['sh', '-c', script], env });

/** MySQL's system schemas: not dumped (the server's own accounts come from the image's environment contract) */
const MYSQL_SYSTEM = "'mysql','information_schema','performance_schema','sys'";

function credentials(db: DatabasePlan, drill: boolean): Record<string, string> {
  const port = String(db.port);
  switch (db.type) {
    case 'POSTGRESQL':
      return { PGHOST: '127.0.0.1', PGPORT: port, PGUSER: db.login, PGPASSWORD: db.password, PGDATABASE: 'postgres' };
    case 'MYSQL':
      return { BERTH_DB_PORT: port, MYSQL_PWD: db.password };
    case 'MONGODB':
      return { BERTH_MONGO_URI: `mongodb://${encodeURIComponent(db.login)}:${encodeURIComponent(db.password)}@127.0.0.1:${port}/?authSource=admin` };
    case 'REDIS':
      // a drill's throwaway server runs without a password on a container without network
      return drill ? { BERTH_DB_PORT: '6379' } : { BERTH_DB_PORT: port, REDISCLI_AUTH: db.password };
  }
}

/** the URI as a mongo tools' YAML config (0600, removed after), written by printf, a shell builtin */
const MONGO_CONFIG = 'umask 077; cfg=$(mktemp); trap \'rm -f "$cfg"\' EXIT; printf \'uri: "%s"\\n\' "$BERTH_MONGO_URI" > "$cfg"';

const REDIS_CLI = 'cli() { redis-cli -p "$BERTH_DB_PORT" --no-auth-warning "$@"; }';

/** Redis: BGSAVE (scheduled after a running AOF rewrite), wait until LASTSAVE moves, then the file */
const REDIS_DUMP = `set -e
${REDIS_CLI}
dir=$(cli config get dir | sed -n 2p); file=$(cli config get dbfilename | sed -n 2p)
before=$(cli lastsave)
case "$before" in ''|*[!0-9]*) echo "redis-cli: $before" >&2; exit 1;; esac
[ "$before" -lt "$(date +%s)" ] || sleep 1
reply=$(cli bgsave schedule)
case "$reply" in Background*) ;; *) echo "BGSAVE: $reply" >&2; exit 1;; esac
i=0
until [ "$(cli lastsave)" != "$before" ] && cli info persistence | grep -q '^rdb_bgsave_in_progress:0'; do
  i=$((i + 1)); [ "$i" -lt 36000 ] || { echo 'BGSAVE did not finish within an hour' >&2; exit 1; }
  sleep 0.1
done
cli info persistence | grep -q '^rdb_last_bgsave_status:ok' || { echo "BGSAVE failed: $(cli info persistence | grep rdb_last_bgsave_status)" >&2; exit 1; }
exec cat "$dir/$file"`;

export function dumpCommand(db: DatabasePlan): ExecCommand {
  const env = credentials(db, false);
  switch (db.type) {
    case 'POSTGRESQL':
      return { cmd: ['pg_dump', '--format=custom', '--no-password'], env };
    case 'MYSQL':
      return sh(`set -e
dbs=$(mysql -h127.0.0.1 -P"$BERTH_DB_PORT" -uroot -N -B -e "SELECT schema_name FROM information_schema.schemata WHERE schema_name NOT IN (${MYSQL_SYSTEM})")
gtid=''; if mysqldump --help 2>/dev/null | grep -q -- '--set-gtid-purged'; then gtid='--set-gtid-purged=OFF'; fi
if [ -z "$dbs" ]; then echo '-- berth: no user databases'; exit 0; fi
exec mysqldump -h127.0.0.1 -P"$BERTH_DB_PORT" -uroot --single-transaction --routines --events --triggers --hex-blob $gtid --databases $dbs`, env);
    case 'MONGODB':
      return sh(`${MONGO_CONFIG}; mongodump --config="$cfg" --archive --quiet`, env);
    case 'REDIS':
      return sh(REDIS_DUMP, env);
  }
}

/** where a Redis restore or drill puts the uploaded RDB before it is checked and swapped in */
const REDIS_UPLOAD = '.berth-restore.rdb';

/**
 * Reading the dump on stdin. PostgreSQL: one transaction that stops at the first error, so a dump
 * that cannot restore leaves the data as it was. Redis: only the upload and its check
 * (redis-check-rdb); the swap is redisSwapScript's, with the server stopped.
 */
export function restoreCommand(db: DatabasePlan, dataDir: string, drill = false): ExecCommand {
  const env = credentials(db, drill);
  switch (db.type) {
    case 'POSTGRESQL':
      return { cmd: ['pg_restore', '--clean', '--if-exists', '--no-owner', '--no-privileges', '--single-transaction', '--exit-on-error', '--no-password', '--dbname=postgres'], env };
    case 'MYSQL':
      return { cmd: ['mysql', '-h127.0.0.1', `-P${db.port}`, '-uroot', '--binary-mode'], env };
    case 'MONGODB':
      return sh(`${MONGO_CONFIG}; mongorestore --config="$cfg" --archive --drop --quiet`, env);
    case 'REDIS': {
      const file = `${dataDir}/${REDIS_UPLOAD}`;
      // a drill's server waits for the marker before it starts on the file
      const then = drill ? `mv '${file}' '${dataDir}/dump.rdb' && touch '${dataDir}/.berth-ready'` : 'true';
      return sh(`set -e; cat > '${file}'; redis-check-rdb '${file}' > /tmp/.berth-check 2>&1 || { tail -n 5 /tmp/.berth-check >&2; rm -f '${file}'; exit 1; }; ${then}`, env);
    }
  }
}

/**
 * Redis, run in a helper container on the stopped database's volume: the uploaded RDB becomes
 * dump.rdb, a private server loads it with appendonly off, CONFIG SET appendonly yes rewrites the
 * append-only file from it, the server shuts down; what was there before is put back on any failure.
 */
export function redisSwapScript(dataDir: string): string {
  return `set -e
cd '${dataDir}'
owner=$(stat -c %u:%g .)
[ -f '${REDIS_UPLOAD}' ] || { echo 'no uploaded RDB' >&2; exit 1; }
rm -rf .berth-before-restore; mkdir .berth-before-restore
for f in appendonlydir appendonly.aof dump.rdb; do if [ -e "$f" ]; then mv "$f" .berth-before-restore/; fi; done
ok=0
rollback() {
  if [ "$ok" != 1 ]; then
    [ -f /tmp/redis.pid ] && kill "$(cat /tmp/redis.pid)" 2>/dev/null || true
    sleep 1; rm -rf appendonlydir appendonly.aof dump.rdb
    for f in .berth-before-restore/*; do [ -e "$f" ] && mv "$f" .; done
    rm -rf .berth-before-restore; chown -R "$owner" .
    tail -n 20 /tmp/redis.log >&2 2>/dev/null || true
  fi
}
trap rollback EXIT
mv '${REDIS_UPLOAD}' dump.rdb
redis-server --port 6379 --bind 127.0.0.1 --dir '${dataDir}' --dbfilename dump.rdb --appendonly no --save '' --daemonize yes --logfile /tmp/redis.log --pidfile /tmp/redis.pid
cli() { redis-cli -p 6379 "$@"; }
i=0; until [ "$(cli ping 2>/dev/null)" = PONG ]; do i=$((i + 1)); [ "$i" -lt 36000 ] || { echo 'the RDB did not load' >&2; exit 1; }; sleep 0.1; done
[ "$(cli config set appendonly yes)" = OK ] || { echo 'CONFIG SET appendonly yes failed' >&2; exit 1; }
i=0
until cli info persistence | grep -q '^aof_rewrite_in_progress:0' && cli info persistence | grep -q '^aof_rewrite_scheduled:0'; do
  i=$((i + 1)); [ "$i" -lt 36000 ] || { echo 'the append-only rewrite did not finish' >&2; exit 1; }; sleep 0.1
done
cli info persistence | grep -q '^aof_last_bgrewrite_status:ok' || { echo 'the append-only rewrite failed' >&2; exit 1; }
pid=$(cat /tmp/redis.pid); cli shutdown > /dev/null 2>&1 || true
while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
[ -d appendonlydir ] || [ -f appendonly.aof ] || { echo 'no append-only file was written' >&2; exit 1; }
ok=1; rm -rf .berth-before-restore /tmp/redis.pid; chown -R "$owner" .
echo restored`;
}

/** a drill's Redis: waits for the checked upload, then serves it (no password, no AOF, loopback only) */
export function redisDrillCommand(dataDir: string): string[] {
  return ['sh', '-c', `while [ ! -e '${dataDir}/.berth-ready' ]; do sleep 0.2; done; exec redis-server --port 6379 --bind 127.0.0.1 --dir '${dataDir}' --dbfilename dump.rdb --appendonly no --save ''`];
}

/** exits 0 once the server answers its own client with the credentials (TCP, as the real one listens) */
export function readyCommand(db: DatabasePlan, drill = false): ExecCommand {
  const env = credentials(db, drill);
  switch (db.type) {
    case 'POSTGRESQL':
      return { cmd: ['psql', '--no-password', '-tAc', 'SELECT 1'], env };
    case 'MYSQL':
      return { cmd: ['mysql', '-h127.0.0.1', `-P${db.port}`, '-uroot', '-N', '-e', 'SELECT 1'], env };
    case 'MONGODB':
      return sh('mongosh --nodb --quiet --eval \'new Mongo(process.env.BERTH_MONGO_URI).getDB("admin").runCommand({ ping: 1 }).ok\'', env);
    case 'REDIS':
      return sh(`${REDIS_CLI}; [ "$(cli ping)" = PONG ]`, env);
  }
}

/** prints `name<TAB>count` lines: exact row counts of user tables, documents of collections, keys */
export function countsCommand(db: DatabasePlan, drill = false): ExecCommand {
  const env = credentials(db, drill);
  switch (db.type) {
    case 'POSTGRESQL':
      return { cmd: ['psql', '--no-password', '-v', 'ON_ERROR_STOP=1', '-tA', '-F', '\t', '-c', `SELECT CASE WHEN table_schema = 'public' THEN table_name ELSE table_schema || '.' || table_name END,
  (xpath('/row/c/text()', query_to_xml(format('SELECT count(*) AS c FROM %I.%I', table_schema, table_name), false, true, '')))[1]::text
FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`], env };
    case 'MYSQL':
      return sh(`set -e
q=$(mysql -h127.0.0.1 -P"$BERTH_DB_PORT" -uroot -N -B -e "SET SESSION group_concat_max_len = 16777216; SELECT GROUP_CONCAT(CONCAT('SELECT ', QUOTE(CONCAT(table_schema, '.', table_name)), ', COUNT(*) FROM \\\`', REPLACE(table_schema, '\\\`', '\\\`\\\`'), '\\\`.\\\`', REPLACE(table_name, '\\\`', '\\\`\\\`'), '\\\`') SEPARATOR ' UNION ALL ') FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema NOT IN (${MYSQL_SYSTEM})")
if [ -n "$q" ] && [ "$q" != NULL ]; then mysql -h127.0.0.1 -P"$BERTH_DB_PORT" -uroot -N -B -e "$q"; fi`, env);
    case 'MONGODB':
      return sh(`mongosh --nodb --quiet --eval 'const m = new Mongo(process.env.BERTH_MONGO_URI);
for (const d of m.getDB("admin").adminCommand({ listDatabases: 1 }).databases) {
  if (["admin", "config", "local"].includes(d.name)) continue;
  for (const c of m.getDB(d.name).getCollectionNames()) print(d.name + "." + c + "\\t" + m.getDB(d.name).getCollection(c).countDocuments({}));
}'`, env);
    case 'REDIS':
      return sh(`${REDIS_CLI}; cli info keyspace`, env);
  }
}

/** the counts from countsCommand's output (Redis: the keys of every logical database summed) */
export function parseCounts(type: DatabasePlan['type'], output: string): Record<string, number> {
  const counts: Record<string, number> = {};
  if (type === 'REDIS') {
    let keys = 0;
    for (const m of output.matchAll(/^db\d+:keys=(\d+)/gm)) keys += Number(m[1]);
    return { keys };
  }
  for (const line of output.split('\n')) {
    const m = /^(.+)\t(\d+)\s*$/.exec(line);
    if (m) counts[m[1]!] = Number(m[2]);
  }
  return counts;
}

/** the tool named in failure messages */
export function toolOf(type: DatabasePlan['type'], action: 'dump' | 'restore'): string {
  const tools = { POSTGRESQL: ['pg_dump', 'pg_restore'], MYSQL: ['mysqldump', 'mysql'], MONGODB: ['mongodump', 'mongorestore'], REDIS: ['BGSAVE', 'redis-check-rdb'] } as const;
  return tools[type][action === 'dump' ? 0 : 1];
}
