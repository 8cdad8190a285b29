// Small pure helpers about addresses written as text: the address a socket binds for a host
// setting, and URLs with their credentials hidden before a line is shown or stored.

/** the address a listening socket (or a port Docker publishes) binds for a host setting such as INGRESS_HOST: without IPv6 brackets */
export function publishAddress(ingressHost: string): string {
  return ingressHost.replace(/^\[(.*)\]$/, '$1');
}

/** hides user:password@ in URLs that a tool line may echo back */
export function redactUrls(line: string): string {
  return line.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi, '$1***@');
}
