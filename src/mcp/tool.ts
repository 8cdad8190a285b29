// What a tool of berth's MCP server is: a name and a description written for a model to choose
// well, an input schema (TypeBox, the same schemas the REST API validates with), the role
// table's action it needs, how far it reaches (an organization-wide tool is not offered to a
// workflow run's credential), the hints clients show a person before a call, and a thin `run`
// over the services the routes use.
import type { Static, TObject } from 'typebox';
import { Type } from 'typebox';
import type { AppContext } from '../context.ts';
import type { Principal } from '../modules/access/principal.ts';
import type { TargetType } from '../modules/audit/audit.rules.ts';

export interface ToolCall {
  ctx: AppContext;
  principal: Principal;
  signal: AbortSignal;
  /** a progress notification to the client, when it asked for them (else nothing) */
  progress(progress: number, total: number | undefined, message: string): Promise<void>;
  /** records the mutation a tool made in the organization's audit log, as a REST route would */
  audit(eventType: string, targetType: TargetType, targetId: string, change?: string): Promise<void>;
}

interface ToolHints { destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean }

export interface ToolDef<S extends TObject = TObject> {
  name: string;
  title: string;
  description: string;
  input: S;
  /** read: any member (VIEWER and up); write: DEVOPS and up, as the REST API's role table says */
  action: 'read' | 'write';
  /** organization: lists or reads across an organization (not offered to a run's credential) */
  reach: 'organization' | 'environment';
  hints?: ToolHints;
  run(call: ToolCall, args: Static<S>): Promise<unknown>;
}

/** typed at the definition, erased in the catalogue */
export function tool<S extends TObject>(def: ToolDef<S>): ToolDef {
  return def as unknown as ToolDef;
}

// ---- the words tools share: every place is a name or an id

const word = (what: string) => Type.String({ minLength: 1, maxLength: 255, description: `${what}: its name (case-insensitive) or its id` });
export const OrganizationWord = Type.Optional(word('the organization; needed only when you are a member of several'));
export const ProjectWord = Type.Optional(word('the project; narrows a name that exists in several projects'));
export const EnvironmentWord = Type.Optional(word('the environment; narrows a name that exists in several environments'));
const ServiceWord = word('the service (application, container, database, job or agentic workflow)');

/** the words that place a service */
export const ServicePlaceInput = { service: ServiceWord, environment: EnvironmentWord, project: ProjectWord, organization: OrganizationWord };
/** the words that place an environment */
export const EnvironmentPlaceInput = {
  environment: word('the environment'), project: ProjectWord, organization: OrganizationWord,
};
