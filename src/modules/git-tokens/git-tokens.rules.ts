// Pure rules of git tokens: what a token, a workspace, an API URL and an expiry must look like,
// the user name git sends with a token of each provider (HTTP basic auth), how a service using a
// token is typed in the associated services (a job is CRON or LIFECYCLE, as the public API says),
// and the 409 message that names the services keeping a token from being deleted.
import { badRequest } from '../../lib/errors.ts';
import type { GitTokenType } from './git-tokens.schemas.ts';

/**
 * A token travels in an HTTP header (`Authorization: Basic …`, built by the engine): printable
 * ASCII with no space or line break, so it can neither break the header nor add another.
 */
export function checkTokenValue(token: string): void {
  if (!/^[\x21-\x7e]+$/.test(token)) throw badRequest('token must be printable ASCII with no spaces or line breaks (as git providers issue them)');
}

/** '' (none) or an http(s) URL */
export function normalizeApiUrl(url: string | null | undefined): string {
  const value = (url ?? '').trim();
  if (value === '') return '';
  let parsed: URL;
  try { parsed = new URL(value); } catch { throw badRequest(`git_api_url "${value}" is not a URL`); }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw badRequest('git_api_url must be an http or https URL');
  if (parsed.username || parsed.password) throw badRequest('git_api_url must not carry credentials');
  return value;
}

/** the workspace kept for the type: required for BITBUCKET (as the public API says), null when blank */
export function normalizeWorkspace(type: GitTokenType, workspace: string | null | undefined): string | null {
  const value = workspace?.trim() ?? '';
  if (type === 'BITBUCKET' && value === '') throw badRequest('workspace is required for a BITBUCKET git token');
  return value === '' ? null : value;
}

/** an expiry as an ISO instant, within what the database stores (years 1970 to 9999) */
export function normalizeExpiry(expiredAt: string | null | undefined): string | null {
  if (expiredAt === undefined || expiredAt === null) return null;
  const time = Date.parse(expiredAt);
  const date = new Date(time);
  if (Number.isNaN(time) || date.getUTCFullYear() < 1970 || date.getUTCFullYear() > 9999) {
    throw badRequest(`expired_at "${expiredAt}" is not a date-time between 1970 and 9999`);
  }
  return date.toISOString();
}

const USERNAMES: Record<GitTokenType, string> = {
  GITHUB: 'x-access-token',
  GITLAB: 'oauth2',
  BITBUCKET: 'x-token-auth',
  GENERIC: 'x-access-token',
};

/** the basic-auth user name sent with a token of this type (a user name in the repository URL wins) */
export function basicAuthUsername(type: string): string {
  return USERNAMES[type as GitTokenType] ?? 'x-access-token';
}

/** the associated-service type of a service: APPLICATION, CRON or LIFECYCLE for a job, AGENTIC_WORKFLOW */
export function associatedServiceType(type: string, spec: Record<string, unknown>): string {
  if (type !== 'JOB') return type;
  const schedule = spec.schedule;
  return schedule !== null && typeof schedule === 'object' && 'cronjob' in schedule ? 'CRON' : 'LIFECYCLE';
}

export interface TokenUse { serviceName: string; serviceType: string; projectName: string; environmentName: string }

const NAMED_IN_MESSAGE = 10;

/** why a token cannot be deleted: the services that clone with it (the first ten, then how many more) */
export function inUseMessage(tokenName: string, uses: readonly TokenUse[]): string {
  const named = uses.slice(0, NAMED_IN_MESSAGE).map((u) => `'${u.serviceName}' (${u.serviceType} in ${u.projectName}/${u.environmentName})`);
  const more = uses.length > NAMED_IN_MESSAGE ? ` and ${uses.length - NAMED_IN_MESSAGE} more` : '';
  return `Git token '${tokenName}' is used by ${uses.length} service${uses.length === 1 ? '' : 's'}: ${named.join(', ')}${more}; `
    + 'give them another token (or none) first';
}
