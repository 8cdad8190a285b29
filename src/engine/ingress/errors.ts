// The error of a bad input to the ingress proxy (a route id, host, upstream or setting refused by
// routes.ts or settings.ts), in a file of its own so both can throw it without importing each other.

export class IngressInputError extends Error {
  override name = 'IngressInputError';
}
