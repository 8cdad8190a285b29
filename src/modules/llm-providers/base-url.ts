// What a model endpoint's base URL may be (pure): an LLM provider's `base_url` and a workflow's
// `model.settings.base_url` both name an Anthropic-compatible endpoint (Anthropic's API, a
// corporate proxy, a LiteLLM gateway) that the agent harness is pointed at. One rule for both.
import { shown } from '../../http/validation-messages.ts';

export const BASE_URL_MAX_LENGTH = 2048;

/**
 * Why `value` cannot be a base URL, as the end of a sentence whose subject is the field
 * ("must be an http or https URL; got \"ftp://x\""), or null when it can. The harness appends
 * the API paths (`/v1/messages`) to it, so it may carry a path but no query or fragment; and it
 * is stored and shown in clear, so it may not carry a user name or password.
 */
export function baseUrlProblem(value: string): string | null {
  if (value.length > BASE_URL_MAX_LENGTH) return `must be at most ${BASE_URL_MAX_LENGTH} characters; got ${value.length}`;
  if (value !== value.trim()) return `must not start or end with white space; got ${shown(value)}`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `must be an http or https URL (e.g. https://llm-gateway.example.com); got ${shown(value)}`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `must be an http or https URL; got the scheme ${shown(url.protocol.slice(0, -1))}`;
  if (url.username !== '' || url.password !== '') {
    return 'must not carry a user name or password (it is stored and shown in clear); give the key as the credential instead';
  }
  if (url.search !== '' || url.hash !== '' || value.includes('?') || value.includes('#')) {
    return `must not have a query or fragment (the harness appends the API paths to it); got ${shown(value)}`;
  }
  return null;
}
