// MCP connector request and response shapes (the public McpServerRequest/Response plus berth's
// scope and owner). Header values are write-only: responses carry header_names only.
import { Type, type Static } from 'typebox';
import { Paginated, Timestamp, Uuid } from '../../http/schemas.ts';

const Scope = Type.Union([Type.Literal('ORGANIZATION'), Type.Literal('USER')], { description: 'ORGANIZATION (shared) or USER (personal to its creator)' });

export const McpServerRequest = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' }),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 4096 }), Type.Null()])),
  url: Type.String({ format: 'uri', pattern: '^https://', maxLength: 2048, description: 'HTTPS address of the MCP server' }),
  headers: Type.Optional(Type.Union([Type.Record(Type.String(), Type.String({ maxLength: 8192 })), Type.Null()], {
    writeOnly: true, description: 'sent with every call to the server; values sealed, never returned; a PUT replaces them all (omitted: none)',
  })),
  scope: Type.Optional(Scope),
}, { additionalProperties: false });
export type McpServerRequest = Static<typeof McpServerRequest>;

export const McpServer = Type.Object({
  id: Uuid,
  created_at: Timestamp,
  updated_at: Timestamp,
  name: Type.String(),
  description: Type.String(),
  url: Type.String(),
  header_names: Type.Array(Type.String()),
  scope: Type.String(),
  owner_user_sub: Type.String({ description: "creator's OIDC subject; empty string when made by an API token" }),
  owner_name: Type.String(),
});
export type McpServer = Static<typeof McpServer>;

export const McpServerList = Paginated(McpServer);
