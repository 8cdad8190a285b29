// HTTP routes of deploy on push: the organization's git webhook settings and secret (ADMIN and
// above), and the public receiving end per provider. The receiving end sits in a scope of its
// own whose only body parser keeps the raw bytes (any content type), because the signatures are
// over the body exactly as sent; it never reaches the app's JSON parser or body validation.
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
import { ErrorBody, NoContent, idParams, optionalBody } from '../../http/schemas.ts';
import { EmptyRequest } from '../deployments/deployments.schemas.ts';
import { GitWebhookCreated, GitWebhookParams, GitWebhookReceipt, GitWebhookSettings } from './git-push.schemas.ts';
import { GIT_WEBHOOK_BODY_LIMIT } from './git-push.service.ts';
import type { GitWebhookProvider } from './signatures.ts';

const tags = ['Git webhooks'];

export function gitPushRoutes(app: App, ctx: AppContext): void {
  const svc = ctx.services.gitPush;
  const orgParams = idParams('organizationId');

  app.get('/organization/:organizationId/gitWebhook', {
    schema: { tags, operationId: 'getOrganizationGitWebhook', summary: 'The payload URL per git provider and whether a secret is set (the secret itself is never returned)', params: orgParams, response: { 200: GitWebhookSettings } },
  }, async (req) => svc.settings(req.principal, req.params.organizationId));

  app.post('/organization/:organizationId/gitWebhook', {
    preValidation: optionalBody,
    schema: {
      tags, operationId: 'generateOrganizationGitWebhookSecret', params: orgParams, body: EmptyRequest, response: { 201: GitWebhookCreated },
      summary: 'Make the organization\'s git webhook secret (replacing any): shown once in this answer, with the payload URL per provider',
    },
  }, async (req, reply) => reply.code(201).send(await svc.createSecret(req.principal, req.params.organizationId)));

  app.delete('/organization/:organizationId/gitWebhook', {
    schema: { tags, operationId: 'deleteOrganizationGitWebhook', summary: 'Delete the secret: every delivery is refused (401) until a new one is made', params: orgParams, response: NoContent },
  }, async (req, reply) => {
    await svc.deleteSecret(req.principal, req.params.organizationId);
    return reply.code(204).send(null);
  });

  app.register(async (scope: App) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: GIT_WEBHOOK_BODY_LIMIT }, (_req, body: Buffer, done) => done(null, body));
    scope.post('/gitWebhook/:organizationId/:provider', {
      config: { public: true },
      bodyLimit: GIT_WEBHOOK_BODY_LIMIT,
      schema: {
        tags, operationId: 'receiveGitWebhook', params: GitWebhookParams,
        response: { 200: GitWebhookReceipt, 401: { ...ErrorBody, description: 'The signature is missing or does not check out (nothing was done)' } },
        summary: 'A git provider\'s webhook delivery (no Authorization: signed with the organization\'s git webhook secret). A push to a branch that services with auto_deploy track queues one deployment of the pushed commit for each; other events are acknowledged and ignored; a bad or missing signature is 401',
      },
    }, async (req) => svc.receive({
      organizationId: req.params.organizationId, provider: req.params.provider as GitWebhookProvider,
      headers: req.headers, body: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
    }));
  });
}
