// Git token request and response shapes, as the public API has them (GitTokenRequest,
// GitTokenResponse, GitTokenAssociatedServiceResponse). The token is write-only: sealed at rest,
// never in a response. berth adds GENERIC (any git host that takes HTTP basic auth: Gitea,
// Forgejo, a self-hosted server) and an optional expired_at the caller may record.
import { Type, type Static } from 'typebox';
import { BaseRecord, Paginated, Timestamp, Uuid } from '../../http/schemas.ts';

const GIT_TOKEN_TYPES = ['GITHUB', 'GITLAB', 'BITBUCKET', 'GENERIC'] as const;
export type GitTokenType = (typeof GIT_TOKEN_TYPES)[number];

const TokenType = Type.Union(GIT_TOKEN_TYPES.map((v) => Type.Literal(v)), {
  description: 'the git provider: GITHUB, GITLAB, BITBUCKET, or GENERIC (berth: any host that takes the token as an HTTP basic-auth password)',
});
const Name = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' });
const Description = Type.Optional(Type.Union([Type.String({ maxLength: 4096 }), Type.Null()]));
const Workspace = Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()], {
  description: 'the Bitbucket workspace; required for BITBUCKET',
}));
const ApiUrl = Type.Optional(Type.Union([Type.String({ maxLength: 2048 }), Type.Null()], {
  description: 'the API URL of a self-hosted provider (e.g. https://gitlab.example.com); stored and returned, berth calls no provider API',
}));
const ExpiredAt = Type.Optional(Type.Union([Timestamp, Type.Null()], {
  description: 'berth: when the token expires, as the provider told you (recorded and returned; a clone with an expired token fails at the provider)',
}));

export const GitTokenRequest = Type.Object({
  name: Name,
  description: Description,
  type: TokenType,
  token: Type.String({ minLength: 1, maxLength: 16384, writeOnly: true, description: 'the token from your git provider: write-only (sealed, never returned)' }),
  workspace: Workspace,
  git_api_url: ApiUrl,
  expired_at: ExpiredAt,
}, { additionalProperties: false });
export type GitTokenRequest = Static<typeof GitTokenRequest>;

export const GitTokenEditRequest = Type.Object({
  ...GitTokenRequest.properties,
  token: Type.Optional(Type.String({ minLength: 1, maxLength: 16384, writeOnly: true, description: 'write-only; omitted: the stored token is kept' })),
}, { additionalProperties: false, description: 'name and type are required as at creation; omitted optional members keep their value' });
export type GitTokenEditRequest = Static<typeof GitTokenEditRequest>;

export const GitToken = Type.Object({
  ...BaseRecord,
  name: Type.String(),
  description: Type.String(),
  type: Type.String({ description: 'GITHUB, GITLAB, BITBUCKET or GENERIC' }),
  expired_at: Type.Optional(Timestamp),
  workspace: Type.Optional(Type.String()),
  associated_services_count: Type.Integer({ description: 'the applications, jobs and agentic workflows of the organization that clone with this token' }),
  git_api_url: Type.String({ description: 'empty string when none was given' }),
});
export type GitToken = Static<typeof GitToken>;
export const GitTokenList = Paginated(GitToken);

export const GitTokenAssociatedService = Type.Object({
  project_id: Uuid,
  project_name: Type.String(),
  environment_id: Uuid,
  environment_name: Type.String(),
  service_id: Uuid,
  service_name: Type.String(),
  service_type: Type.String({ description: 'APPLICATION, CRON or LIFECYCLE (a job), AGENTIC_WORKFLOW (berth)' }),
});
export type GitTokenAssociatedService = Static<typeof GitTokenAssociatedService>;
export const GitTokenAssociatedServiceList = Paginated(GitTokenAssociatedService);
