// HTTP routes of organization webhooks: CRUD, the delivery history, redelivery and a test ping.
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
import { pageRequest } from '../../http/pagination.ts';
import { NoContent, PageQuery, idParams, optionalBody } from '../../http/schemas.ts';
import { EmptyRequest } from '../deployments/deployments.schemas.ts';
import { Webhook, WebhookCreateRequest, WebhookCreated, WebhookEditRequest, WebhookEvent, WebhookEventList, WebhookList } from './webhooks.schemas.ts';

const tags = ['Organization Webhooks'];

export function webhookRoutes(app: App, ctx: AppContext): void {
  const svc = ctx.services.webhooks;
  const orgParams = idParams('organizationId');
  const hookParams = idParams('organizationId', 'webhookId');

  app.get('/organization/:organizationId/webhook', {
    schema: { tags, operationId: 'listOrganizationWebHooks', params: orgParams, querystring: PageQuery, response: { 200: WebhookList } },
  }, async (req) => svc.list(req.principal, req.params.organizationId, pageRequest(req.query, 'configuration')));

  app.post('/organization/:organizationId/webhook', {
    schema: { tags, operationId: 'createOrganizationWebhook', params: orgParams, body: WebhookCreateRequest, response: { 201: WebhookCreated } },
  }, async (req, reply) => reply.code(201).send(await svc.create(req.principal, req.params.organizationId, req.body)));

  app.get('/organization/:organizationId/webhook/:webhookId', {
    schema: { tags, operationId: 'getOrganizationWebhook', params: hookParams, response: { 200: Webhook } },
  }, async (req) => svc.get(req.principal, req.params.organizationId, req.params.webhookId));

  app.put('/organization/:organizationId/webhook/:webhookId', {
    schema: { tags, operationId: 'editOrganizationWebhook', summary: 'Edit a webhook (members omitted keep their value)', params: hookParams, body: WebhookEditRequest, response: { 200: Webhook } },
  }, async (req) => svc.update(req.principal, req.params.organizationId, req.params.webhookId, req.body));

  app.delete('/organization/:organizationId/webhook/:webhookId', {
    schema: { tags, operationId: 'deleteOrganizationWebhook', params: hookParams, response: NoContent },
  }, async (req, reply) => {
    await svc.remove(req.principal, req.params.organizationId, req.params.webhookId);
    return reply.code(204).send(null);
  });

  app.get('/organization/:organizationId/webhook/:webhookId/event', {
    schema: { tags, operationId: 'listWebhookEvent', summary: 'Delivery history, newest first (20 by default)', params: hookParams, querystring: PageQuery, response: { 200: WebhookEventList } },
  }, async (req) => svc.events(req.principal, req.params.organizationId, req.params.webhookId, pageRequest(req.query, 'history')));

  app.post('/organization/:organizationId/webhook/:webhookId/event/:eventId/redeliver', {
    preValidation: optionalBody,
    schema: { tags, operationId: 'redeliverWebhookEvent', summary: 'Deliver an event again (same webhook-id)', params: idParams('organizationId', 'webhookId', 'eventId'), body: EmptyRequest, response: { 202: WebhookEvent } },
  }, async (req, reply) => reply.code(202).send(await svc.redeliver(req.principal, req.params.organizationId, req.params.webhookId, req.params.eventId)));

  app.post('/organization/:organizationId/webhook/:webhookId/test', {
    preValidation: optionalBody,
    schema: { tags, operationId: 'testOrganizationWebhook', summary: 'Send a PING event to the target', params: hookParams, body: EmptyRequest, response: { 202: WebhookEvent } },
  }, async (req, reply) => reply.code(202).send(await svc.test(req.principal, req.params.organizationId, req.params.webhookId)));
}
