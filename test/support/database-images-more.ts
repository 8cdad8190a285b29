// More database images for engine tests, without any image registry (see database-image.ts):
// `mysql:<v>` from Debian bookworm's MariaDB, honouring the official mysql image's contract berth
// relies on (MYSQL_ROOT_PASSWORD, MYSQL_USER, MYSQL_PASSWORD, MYSQL_DATABASE; data in
// /var/lib/mysql; 3306 on every interface; root over TCP with the root password; `mysqladmin
// ping`, `mysql`, `mysqldump` on PATH; logs on stderr), and `redis:<v>` from Debian's redis-server
// (7.0; `redis-server`, `redis-cli`, `redis-check-rdb` on PATH; data in /data, the working
// directory; the server runs as the redis user). MongoDB is not in Debian bookworm: no image.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { buildImage } from '../../src/engine/docker/build.ts';
import { hasImage, importRoot, rootTarball } from './debian-root.ts';

const MARIADB_BASE = 'berth-test/debian-mariadb:bookworm';
const REDIS_BASE = 'berth-test/debian-redis:bookworm';

/** first start: a socket-only server initialises the accounts and the database, then the real one runs */
/** (Debian's package initialised /var/lib/mysql at install: the image ships it empty, as the official one does) */
const MYSQL_ENTRYPOINT = `#!/bin/sh
set -eu
DATADIR=/var/lib/mysql
if [ "\${1:-mysqld}" != mysqld ] && [ "\${1#-}" = "\${1:-x}" ]; then exec "$@"; fi
[ "\${1:-}" = mysqld ] && shift
mkdir -p "$DATADIR" /run/mysqld
chown -R mysql:mysql "$DATADIR" /run/mysqld
sql() { printf '%s' "$1" | sed -e 's/\\\\/\\\\\\\\/g' -e "s/'/''/g"; }
if [ ! -d "$DATADIR/mysql" ]; then
  if [ -z "\${MYSQL_ROOT_PASSWORD:-}" ]; then echo "Error: the database is uninitialized and MYSQL_ROOT_PASSWORD is not set" >&2; exit 1; fi
  mariadb-install-db --user=mysql --datadir="$DATADIR" --auth-root-authentication-method=normal --skip-test-db > /dev/null
  mariadbd --user=mysql --datadir="$DATADIR" --skip-networking --socket=/run/mysqld/init.sock &
  pid=$!
  i=0; until mariadb-admin --socket=/run/mysqld/init.sock -uroot ping > /dev/null 2>&1; do i=$((i + 1)); [ "$i" -lt 300 ] || exit 1; sleep 0.2; done
  root=$(sql "$MYSQL_ROOT_PASSWORD")
  {
    echo "DELETE FROM mysql.global_priv WHERE User = '' OR (User = 'root' AND Host <> 'localhost');"
    echo "FLUSH PRIVILEGES;"
    echo "ALTER USER 'root'@'localhost' IDENTIFIED BY '$root';"
    echo "CREATE USER 'root'@'%' IDENTIFIED BY '$root'; GRANT ALL ON *.* TO 'root'@'%' WITH GRANT OPTION;"
    if [ -n "\${MYSQL_DATABASE:-}" ]; then echo "CREATE DATABASE IF NOT EXISTS \\\`$MYSQL_DATABASE\\\`;"; fi
    if [ -n "\${MYSQL_USER:-}" ]; then
      echo "CREATE USER '$(sql "$MYSQL_USER")'@'%' IDENTIFIED BY '$(sql "\${MYSQL_PASSWORD:-}")';"
      if [ -n "\${MYSQL_DATABASE:-}" ]; then echo "GRANT ALL ON \\\`$MYSQL_DATABASE\\\`.* TO '$(sql "$MYSQL_USER")'@'%';"; fi
    fi
    echo "FLUSH PRIVILEGES;"
  } | mariadb --socket=/run/mysqld/init.sock -uroot
  kill "$pid"; wait "$pid" || true
  echo "MariaDB init process complete; ready for start up."
fi
exec mariadbd --user=mysql --datadir="$DATADIR" --bind-address=0.0.0.0 --port=3306 --socket=/run/mysqld/mysqld.sock "$@"
`;

/** the official redis image's: options alone run redis-server; as root, /data is chowned and the server runs as redis */
const REDIS_ENTRYPOINT = `#!/bin/sh
set -e
if [ "\${1#-}" != "$1" ] || [ "\${1%.conf}" != "$1" ]; then set -- redis-server "$@"; fi
if [ "$1" = redis-server ] && [ "$(id -u)" = 0 ]; then
  find . \\! -user redis -exec chown redis:redis '{}' +
  exec setpriv --reuid=redis --regid=redis --init-groups "$0" "$@"
fi
exec "$@"
`;

interface Recipe { base: string; packages: string[]; entrypoint: string; dockerfile: string[] }

const recipes = {
  MYSQL: {
    base: MARIADB_BASE, packages: ['mariadb-server', 'mariadb-client'], entrypoint: MYSQL_ENTRYPOINT,
    dockerfile: ['RUN rm -rf /var/lib/mysql && mkdir -p /var/lib/mysql /run/mysqld && chown -R mysql:mysql /var/lib/mysql /run/mysqld', 'VOLUME /var/lib/mysql', 'EXPOSE 3306', 'CMD ["mysqld"]'],
  },
  REDIS: {
    base: REDIS_BASE, packages: ['redis-server'], entrypoint: REDIS_ENTRYPOINT,
    dockerfile: ['RUN mkdir -p /data && chown redis:redis /data', 'VOLUME /data', 'WORKDIR /data', 'EXPOSE 6379', 'CMD ["redis-server"]'],
  },
} satisfies Record<string, Recipe>;

/** builds `<mysql|redis>:<version>` from Debian's packages (whatever the version asked: bookworm ships one of each) */
export async function makeMoreImage(docker: Docker, type: 'MYSQL' | 'REDIS', version: string): Promise<string> {
  const recipe: Recipe = recipes[type];
  const ref = `${type === 'MYSQL' ? 'mysql' : 'redis'}:${version}`;
  if (await hasImage(docker, ref)) return ref;
  if (!(await hasImage(docker, recipe.base))) await importRoot(docker, await rootTarball(recipe.packages), recipe.base);
  const dir = await mkdtemp(join(tmpdir(), 'berth-test-db-'));
  try {
    await writeFile(join(dir, 'docker-entrypoint.sh'), recipe.entrypoint, { mode: 0o755 });
    await writeFile(join(dir, 'Dockerfile'), [
      `FROM ${recipe.base}`,
      'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8',
      'COPY docker-entrypoint.sh /usr/local/bin/docker-entrypoint.sh',
      ...recipe.dockerfile,
      'ENTRYPOINT ["docker-entrypoint.sh"]',
      '',
    ].join('\n'));
    await buildImage(docker, { contextDir: dir, dockerfilePath: null, tag: ref, buildArgs: {}, labels: { 'berth-test': 'database' } },
      async () => {}, AbortSignal.timeout(300_000));
    return ref;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
