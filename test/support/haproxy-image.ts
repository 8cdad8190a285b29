// The HAProxy image of the ingress container runtime for engine tests, without any image registry
// (decision 0348): a Debian bookworm root with Debian's haproxy (2.6.12, the release the default
// INGRESS_IMAGE pins) made by debootstrap and cached by debian-root.ts, imported as
// `berth-test/haproxy:bookworm` with the official image's contract set at import (haproxy on
// PATH, CMD `haproxy -W -db -f /usr/local/etc/haproxy/haproxy.cfg`; an import cannot set the stop
// signal, which berth gives the container itself). berth passes its own full command, so only the
// binary matters; the rest makes the image behave like the official one for anyone running it by
// hand. Concurrent callers share one import.
import type Docker from 'dockerode';
import { hasImage, importRoot, rootTarball } from './debian-root.ts';

const HAPROXY_TEST_IMAGE = 'berth-test/haproxy:bookworm';

let made: Promise<string> | undefined;

/** makes HAPROXY_TEST_IMAGE present on the daemon (cold: debootstrap about 40 s + import; warm: at once) and returns its reference */
export function haproxyImage(docker: Docker): Promise<string> {
  made ??= (async () => {
    if (await hasImage(docker, HAPROXY_TEST_IMAGE)) return HAPROXY_TEST_IMAGE;
    await importRoot(docker, await rootTarball(['haproxy']), HAPROXY_TEST_IMAGE, [
      'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      'CMD ["haproxy", "-W", "-db", "-f", "/usr/local/etc/haproxy/haproxy.cfg"]',
    ]);
    return HAPROXY_TEST_IMAGE;
  })();
  made.catch(() => { made = undefined; });
  return made;
}
