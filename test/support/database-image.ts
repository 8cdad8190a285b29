// Database images for engine tests, without any image registry: a Debian bookworm root made by
// debootstrap (minbase + the database packages) from the host's Debian mirror, imported as
// `berth-test/debian-pg:bookworm`, plus an entrypoint honoring the official `postgres` image's
// contract (POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB, data in /var/lib/postgresql/data,
// listens on 5432 on all interfaces, password auth for remote clients, logs to stdout/stderr,
// runs as the postgres user), tagged `postgres:<version>`. The root tarball comes from
// debian-root.ts (cached under /var/cache/berth-test/, so later runs take seconds); concurrent
// callers share one build.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { buildImage } from '../../src/engine/docker/build.ts';
import { hasImage, importRoot, rootTarball } from './debian-root.ts';
import { makeMoreImage } from './database-images-more.ts';

const BASE_IMAGE = 'berth-test/debian-pg:bookworm';
/** PostgreSQL majors Debian bookworm ships */
const POSTGRES_VERSIONS: Record<string, string> = { '15': 'postgresql-15' };

/** the entrypoint: init the data dir on first start (as the postgres user), then run postgres in the foreground */
function postgresEntrypoint(version: string): string {
  return `#!/bin/sh
set -eu
export PGDATA="\${PGDATA:-/var/lib/postgresql/data}"
if [ "\${1:-postgres}" != postgres ] && [ "\${1#-}" = "\${1:-x}" ]; then exec "$@"; fi
[ "\${1:-}" = postgres ] && shift
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown -R postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" postgres "$@"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "\${POSTGRES_USER:=postgres}"
  : "\${POSTGRES_DB:=$POSTGRES_USER}"
  if [ -z "\${POSTGRES_PASSWORD:-}" ] && [ "\${POSTGRES_HOST_AUTH_METHOD:-}" != trust ]; then
    echo "Error: the database is uninitialized and POSTGRES_PASSWORD is not set" >&2
    exit 1
  fi
  pwfile=$(mktemp)
  printf '%s\\n' "\${POSTGRES_PASSWORD:-}" > "$pwfile"
  initdb --username="$POSTGRES_USER" --pwfile="$pwfile" --encoding=UTF8 --locale=C.UTF-8 --auth-local=trust --auth-host=scram-sha-256 -D "$PGDATA"
  rm -f "$pwfile"
  echo "host all all all \${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}" >> "$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start
  if [ "$POSTGRES_DB" != postgres ]; then
    psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres -c "CREATE DATABASE \\"$POSTGRES_DB\\""
  fi
  pg_ctl -D "$PGDATA" -m fast -w stop
  echo "PostgreSQL ${version} init process complete; ready for start up."
fi
exec postgres -c listen_addresses='*' -c port=5432 "$@"
`;
}

const made = new Map<string, Promise<string>>();

/**
 * Makes `postgres:<version>` (or `mysql:<v>` from MariaDB, `redis:<v>`: database-images-more.ts)
 * available on the daemon (built locally, never pulled) and returns its reference. Cold (no cached
 * root): debootstrap + import + build, about a minute; warm: seconds.
 */
export function databaseImage(docker: Docker, type: 'POSTGRESQL' | 'MYSQL' | 'REDIS', version: string): Promise<string> {
  const key = `${type}:${version}`;
  let pending = made.get(key);
  if (!pending) {
    pending = type === 'POSTGRESQL' ? makePostgres(docker, version) : makeMoreImage(docker, type, version);
    made.set(key, pending);
    pending.catch(() => made.delete(key));
  }
  return pending;
}

async function makePostgres(docker: Docker, version: string): Promise<string> {
  const pkg = POSTGRES_VERSIONS[version];
  if (!pkg) throw new Error(`no test image for PostgreSQL ${version} (Debian bookworm ships ${Object.keys(POSTGRES_VERSIONS).join(', ')})`);
  const ref = `postgres:${version}`;
  if (await hasImage(docker, ref)) return ref;
  if (!(await hasImage(docker, BASE_IMAGE))) await importRoot(docker, await rootTarball([pkg]), BASE_IMAGE);
  const dir = await mkdtemp(join(tmpdir(), 'berth-test-pg-'));
  try {
    await writeFile(join(dir, 'docker-entrypoint.sh'), postgresEntrypoint(version), { mode: 0o755 });
    await writeFile(join(dir, 'Dockerfile'), [
      `FROM ${BASE_IMAGE}`,
      `ENV PATH=/usr/lib/postgresql/${version}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin PGDATA=/var/lib/postgresql/data LANG=C.UTF-8`,
      'COPY docker-entrypoint.sh /usr/local/bin/docker-entrypoint.sh',
      'RUN mkdir -p /var/lib/postgresql/data /var/run/postgresql && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql && chmod 700 /var/lib/postgresql/data',
      'VOLUME /var/lib/postgresql/data',
      'EXPOSE 5432',
      'STOPSIGNAL SIGINT',
      'ENTRYPOINT ["docker-entrypoint.sh"]',
      'CMD ["postgres"]',
      '',
    ].join('\n'));
    await buildImage(docker, { contextDir: dir, dockerfilePath: null, tag: ref, buildArgs: {}, labels: { 'berth-test': 'database' } },
      async () => {}, AbortSignal.timeout(300_000));
    return ref;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
