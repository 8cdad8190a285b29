// Request examples of variables and secrets: one per kind of request (create, edit, override,
// alias, import; a variable and a secret), which every scope's operation shows (the routes of a
// project, an environment, an application, a container and a job take the same bodies), plus
// the generic /variable routes. Tests in test/variables send them (docs/decisions/0407).
import { EXAMPLE_IDS, frozen } from './common.ts';

const importOf = (scope: string) => ({
  vars: [
    { name: 'LOG_LEVEL', value: 'info', scope, is_secret: false },
    { name: 'SENTRY_DSN', value: 'https://public-key@sentry.acme.example.com/42', scope, is_secret: true },
  ],
  overwrite: false,
});

export const variableExamples = frozen({
  createEnvironmentVariable: {
    key: 'DATABASE_URL',
    value: 'postgresql://shop@main-db:5432/shop',
    description: 'the database of the API',
  },
  editEnvironmentVariable: {
    key: 'DATABASE_URL',
    value: 'postgresql://shop@main-db:5432/shop?sslmode=require',
    description: 'the database of the API, over TLS',
  },
  createEnvironmentVariableOverride: { value: 'postgresql://shop@staging-db:5432/shop', description: 'the staging copy' },
  createEnvironmentVariableAlias: { key: 'PG_URL', description: 'the name the migration tool reads' },

  createSecret: { key: 'SMTP_PASSWORD', value: 'correct-horse-battery-staple', description: 'the mail relay password' },
  editSecret: { key: 'SMTP_PASSWORD', value: 'rotated-horse-battery-staple' },
  createSecretOverride: { value: 'staging-horse-battery-staple', description: 'the staging mail relay' },
  createSecretAlias: { key: 'MAIL_PASSWORD' },

  importApplication: importOf('APPLICATION'),
  importContainer: importOf('CONTAINER'),
  importJob: importOf('JOB'),

  createVariable: {
    key: 'LOG_LEVEL',
    value: 'info',
    is_secret: false,
    variable_scope: 'APPLICATION',
    variable_parent_id: EXAMPLE_IDS.application,
  },
  editVariable: { key: 'LOG_LEVEL', value: 'debug', description: 'verbose while we chase the checkout bug' },
  createVariableAlias: { key: 'APP_LOG_LEVEL', alias_scope: 'APPLICATION', alias_parent_id: EXAMPLE_IDS.application },
  createVariableOverride: { value: 'debug', override_scope: 'APPLICATION', override_parent_id: EXAMPLE_IDS.application },
});

const SCOPES = ['Project', 'Environment', 'Application', 'Container', 'Job'];

/** the examples by operationId: every scope's routes, the imports, the generic /variable routes */
export function variableExamplesByOperation(): Record<string, unknown> {
  const ex = variableExamples;
  const byOperation: Record<string, unknown> = {
    importEnvironmentVariable: ex.importApplication, // the application's import (the public API's name)
    importContainerEnvironmentVariable: ex.importContainer,
    importJobEnvironmentVariable: ex.importJob,
    importEnvironmentVariables: ex.importApplication, // POST /variable/import?service_type=APPLICATION
    createVariable: ex.createVariable,
    editVariable: ex.editVariable,
    createVariableAlias: ex.createVariableAlias,
    createVariableOverride: ex.createVariableOverride,
  };
  for (const scope of SCOPES) {
    Object.assign(byOperation, {
      [`create${scope}EnvironmentVariable`]: ex.createEnvironmentVariable,
      [`edit${scope}EnvironmentVariable`]: ex.editEnvironmentVariable,
      [`create${scope}EnvironmentVariableOverride`]: ex.createEnvironmentVariableOverride,
      [`create${scope}EnvironmentVariableAlias`]: ex.createEnvironmentVariableAlias,
      [`create${scope}Secret`]: ex.createSecret,
      [`edit${scope}Secret`]: ex.editSecret,
      [`create${scope}SecretOverride`]: ex.createSecretOverride,
      [`create${scope}SecretAlias`]: ex.createSecretAlias,
    });
  }
  return byOperation;
}
