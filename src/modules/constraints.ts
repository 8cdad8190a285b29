// The user-facing message of every constraint a module declares (its repo's `…_CONSTRAINTS`),
// composed once: whoever opens the database for the app gives this table to the driver (openDb's
// `constraints`), which translates a violation of one of them into its status and message
// (src/db/errors.ts). A declaration, not a registration: nothing is filled at import time.
import type { ConstraintMessages } from '../db/errors.ts';
import { CLUSTER_CONSTRAINTS } from './clusters/clusters.repo.ts';
import { DEPLOYMENT_RULE_CONSTRAINTS } from './deployment-rules/deployment-rules.repo.ts';
import { DOMAIN_CONSTRAINTS } from './domains/domains.repo.ts';
import { ENVIRONMENT_CONSTRAINTS } from './environments/environments.repo.ts';
import { GIT_TOKEN_CONSTRAINTS } from './git-tokens/git-tokens.repo.ts';
import { LLM_PROVIDER_CONSTRAINTS } from './llm-providers/llm-providers.repo.ts';
import { MCP_SERVER_CONSTRAINTS } from './mcp-servers/mcp-servers.repo.ts';
import { MEMBER_CONSTRAINTS } from './members/members.repo.ts';
import { ORGANIZATION_CONSTRAINTS } from './organizations/organizations.repo.ts';
import { PROJECT_CONSTRAINTS } from './projects/projects.repo.ts';
import { REGISTRY_CONSTRAINTS } from './registries/registries.repo.ts';
import { SERVICE_GROUP_CONSTRAINTS } from './services/groups/groups.repo.ts';
import { SERVICE_CONSTRAINTS } from './services/services.repo.ts';
import { TOKEN_CONSTRAINTS } from './tokens/tokens.repo.ts';
import { VARIABLE_CONSTRAINTS } from './variables/variables.repo.ts';

export const CONSTRAINT_MESSAGES: ConstraintMessages = Object.freeze({
  ...ORGANIZATION_CONSTRAINTS, ...MEMBER_CONSTRAINTS, ...TOKEN_CONSTRAINTS, ...CLUSTER_CONSTRAINTS, ...REGISTRY_CONSTRAINTS,
  ...GIT_TOKEN_CONSTRAINTS, ...PROJECT_CONSTRAINTS, ...ENVIRONMENT_CONSTRAINTS, ...DEPLOYMENT_RULE_CONSTRAINTS,
  ...SERVICE_CONSTRAINTS, ...SERVICE_GROUP_CONSTRAINTS, ...VARIABLE_CONSTRAINTS, ...LLM_PROVIDER_CONSTRAINTS,
  ...MCP_SERVER_CONSTRAINTS, ...DOMAIN_CONSTRAINTS,
});
