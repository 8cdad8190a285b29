// Notification channels end to end with real receivers on loopback: an incoming-webhook receiver
// (a plain node:http server) gets Slack- and Discord-shaped JSON, an SMTP server (smtp-server from
// npm, with authentication) gets the e-mail; "send a test" for each kind; one message per incident
// (three raises, one message; resolved then failed again, a second); a failed deployment of the
// simulated engine (BERTH_SIMULATE_FAILURE) sends one message; the URL is never returned; 400 /
// 403 / 404 with the project's error body.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { startDeploymentWorkers, startNotificationWorkers } from '../../src/workers/handlers.ts';
import { seedEnvironment, seedService } from '../support/factories.ts';
import { eventually, expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';

interface Hit { path: string; json: any }
interface Mail { from: string; to: string[]; raw: string; subject: string; body: string }

/** the text of a message as sent: headers unfolded, quoted-printable decoded */
function parseMail(raw: string): { subject: string; body: string } {
  const [head, ...rest] = raw.split(/\r?\n\r?\n/);
  const subject = /^subject: (.*(?:\r?\n[ \t].*)*)/im.exec(head!)?.[1]?.replace(/\r?\n[ \t]/g, ' ') ?? '';
  const qp = rest.join('\n\n').replace(/=\r?\n/g, '');
  const body = Buffer.from(qp.replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8');
  return { subject, body };
}

describe('notification channels', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let http: Server;
  let smtp: SMTPServer;
  let base: string;
  let smtpPort: number;
  const hits: Hit[] = [];
  const mails: Mail[] = [];
  /** per path: statuses to answer in turn (200 once exhausted) */
  const script = new Map<string, number[]>();

  before(async () => {
    http = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => { body += c; });
      req.on('end', () => {
        hits.push({ path: req.url!, json: JSON.parse(body) });
        const status = script.get(req.url!)?.shift() ?? 200;
        res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'receiver is down');
      });
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    smtp = new SMTPServer({
      disabledCommands: ['STARTTLS'], allowInsecureAuth: true, logger: false,
      onAuth(auth, _session, cb) {
        if (auth.username === 'berth' && auth.password === 's3cret') cb(null, { user: 'berth' });
        else cb(new Error('Invalid username or password'));
      },
      onData(stream, session, cb) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          mails.push({ from: (session.envelope.mailFrom || { address: '' }).address, to: session.envelope.rcptTo.map((r) => r.address), raw, ...parseMail(raw) });
          cb();
        });
      },
    });
    await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r));
    smtpPort = (smtp.server.address() as AddressInfo).port;
    t = await startTestApp({ config: { webhookAllowPrivateTargets: true, smtpUrl: `smtp://berth:s3cret@127.0.0.1:${smtpPort}`, smtpFrom: 'berth <alerts@berth.test>' } });
    await startDeploymentWorkers(t.ctx);
    await startNotificationWorkers(t.ctx);
    org = await seedOrganization(t);
  });
  after(async () => {
    await t.close();
    await new Promise((r) => http.close(r));
    await new Promise<void>((r) => smtp.close(() => r()));
  });

  const at = (path: string) => hits.filter((h) => h.path === path);
  const mailsTo = (address: string) => mails.filter((m) => m.to.includes(address));
  const create = async (o: SeededOrganization, body: Record<string, unknown>) => {
    const r = await t.request('POST', `/organization/${o.id}/notificationChannel`, { token: o.token, body });
    assert.equal(r.status, 201, r.raw);
    return r.body;
  };
  const settle = () => new Promise((r) => setTimeout(r, 800));

  test('CRUD: the webhook URL is sealed and never returned, only its host; PUT keeps what is omitted; DELETE then 404', async () => {
    const ch = await create(org, { name: 'Ops', kind: 'SLACK', webhook_url: `${base}/slack/T000/B000/very-secret-token` });
    assert.equal(ch.webhook_host, new URL(base).host);
    assert.deepEqual(ch.events, ['BACKUP_FAILED', 'BACKUP_DRILL_FAILED', 'BACKUP_OVERDUE', 'DEPLOYMENT_FAILED', 'AGENT_RUN_FAILED']);
    assert.equal(ch.enabled, true);
    assert.equal('webhook_url' in ch, false);
    const list = await t.request('GET', `/organization/${org.id}/notificationChannel`, { token: org.token });
    const one = await t.request('GET', `/organization/${org.id}/notificationChannel/${ch.id}`, { token: org.token });
    for (const r of [list, one]) {
      assert.equal(r.status, 200);
      assert.doesNotMatch(r.raw, /very-secret-token/);
    }
    const [stored] = await t.ctx.db.query<{ webhook_url_sealed: string }>('select webhook_url_sealed from notification_channels where id = $1', [ch.id]);
    assert.match(stored!.webhook_url_sealed, /^v1\./);
    assert.doesNotMatch(stored!.webhook_url_sealed, /very-secret-token/);
    const put = await t.request('PUT', `/organization/${org.id}/notificationChannel/${ch.id}`, { token: org.token, body: { name: 'ops-renamed', events: ['DEPLOYMENT_FAILED'] } });
    assert.equal(put.status, 200, put.raw);
    assert.deepEqual([put.body.name, put.body.kind, put.body.webhook_host, put.body.events], ['ops-renamed', 'SLACK', ch.webhook_host, ['DEPLOYMENT_FAILED']]);
    const dup = await t.request('POST', `/organization/${org.id}/notificationChannel`, { token: org.token, body: { name: 'OPS-RENAMED', kind: 'EMAIL', recipients: ['a@b.example'] } });
    expectErrorBody(dup, 409);
    assert.equal((await t.request('DELETE', `/organization/${org.id}/notificationChannel/${ch.id}`, { token: org.token })).status, 204);
    expectErrorBody(await t.request('GET', `/organization/${org.id}/notificationChannel/${ch.id}`, { token: org.token }), 404);
  });

  test('400 with the error body: a bad URL, an unknown kind, empty or bad recipients, a missing URL', async () => {
    const post = (body: Record<string, unknown>) => t.request('POST', `/organization/${org.id}/notificationChannel`, { token: org.token, body });
    assert.match(expectErrorBody(await post({ name: 'a', kind: 'SLACK', webhook_url: 'not a url' }), 400).message, /webhook_url must be an absolute http or https URL/);
    assert.match(expectErrorBody(await post({ name: 'a', kind: 'DISCORD', webhook_url: 'ftp://example.com/x' }), 400).message, /webhook_url/);
    assert.match(expectErrorBody(await post({ name: 'a', kind: 'TEAMS', webhook_url: `${base}/x` }), 400).message, /kind/);
    assert.match(expectErrorBody(await post({ name: 'a', kind: 'EMAIL', recipients: [] }), 400).message, /at least one e-mail address/);
    assert.match(expectErrorBody(await post({ name: 'a', kind: 'EMAIL' }), 400).message, /at least one e-mail address/);
    assert.match(expectErrorBody(await post({ name: 'a', kind: 'EMAIL', recipients: ['nobody'] }), 400).message, /"nobody" is not an e-mail address/);
    assert.match(expectErrorBody(await post({ name: 'a', kind: 'SLACK' }), 400).message, /webhook_url is required/);
    assert.match(expectErrorBody(await post({ name: 'a', kind: 'SLACK', webhook_url: `${base}/x`, events: ['NOPE'] }), 400).message, /events/);
  });

  test('403 for a non-admin (a VIEWER may list, a DEVOPS may not create); 404 for another organization\'s channel', async () => {
    const ch = await create(org, { name: 'roles', kind: 'EMAIL', recipients: ['roles@berth.test'] });
    const devops = await org.tokenFor('DEVOPS');
    const viewer = await org.tokenFor('VIEWER');
    const post = await t.request('POST', `/organization/${org.id}/notificationChannel`, { token: devops, body: { name: 'x', kind: 'EMAIL', recipients: ['x@berth.test'] } });
    expectErrorBody(post, 403);
    expectErrorBody(await t.request('DELETE', `/organization/${org.id}/notificationChannel/${ch.id}`, { token: viewer }), 403);
    expectErrorBody(await t.request('POST', `/organization/${org.id}/notificationChannel/${ch.id}/test`, { token: devops }), 403);
    const list = await t.request('GET', `/organization/${org.id}/notificationChannel`, { token: viewer });
    assert.equal(list.status, 200);
    assert.ok(list.body.results.some((c: { id: string }) => c.id === ch.id));
    const other = await seedOrganization(t);
    expectErrorBody(await t.request('GET', `/organization/${other.id}/notificationChannel/${ch.id}`, { token: other.token }), 404);
    expectErrorBody(await t.request('PUT', `/organization/${other.id}/notificationChannel/${ch.id}`, { token: other.token, body: { enabled: false } }), 404);
    expectErrorBody(await t.request('GET', `/organization/${org.id}/notificationChannel/${ch.id}`, { token: other.token }), 403);
  });

  test('send a test: Slack gets {text, blocks}, Discord {content, embeds}, e-mail arrives; a failing receiver is delivered: false with its status', async () => {
    const slack = await create(org, { name: 'slack-test', kind: 'SLACK', webhook_url: `${base}/test/slack` });
    const discord = await create(org, { name: 'discord-test', kind: 'DISCORD', webhook_url: `${base}/test/discord` });
    const email = await create(org, { name: 'mail-test', kind: 'EMAIL', recipients: ['oncall@berth.test', 'lead@berth.test'] });
    const down = await create(org, { name: 'down-test', kind: 'SLACK', webhook_url: `${base}/test/down` });
    const test = (id: string) => t.request('POST', `/organization/${org.id}/notificationChannel/${id}/test`, { token: org.token });

    const rs = await test(slack.id);
    assert.equal(rs.status, 200, rs.raw);
    assert.deepEqual([rs.body.delivered, rs.body.status_code, rs.body.reason, rs.body.kind], [true, 200, null, 'SLACK']);
    const s = at('/test/slack')[0]!.json;
    assert.match(s.text, /Test message: Test message for channel slack-test/);
    assert.equal(s.blocks[0].type, 'header');

    const rd = await test(discord.id);
    assert.equal(rd.body.delivered, true, rd.raw);
    const d = at('/test/discord')[0]!.json;
    assert.match(d.content, /^\*\*Test message: /);
    assert.equal(d.embeds.length, 1);
    assert.match(d.embeds[0].description, new RegExp(org.name));

    const re = await test(email.id);
    assert.deepEqual([re.body.delivered, re.body.status_code, re.body.reason], [true, null, null], re.raw);
    const m = mailsTo('oncall@berth.test')[0]!;
    assert.deepEqual(m.to.sort(), ['lead@berth.test', 'oncall@berth.test']);
    assert.equal(m.from, 'alerts@berth.test');
    assert.equal(m.subject, '[berth] Test message: Test message for channel mail-test');
    assert.match(m.body, /failure notifications for organization/);

    script.set('/test/down', [500]);
    const rf = await test(down.id);
    assert.equal(rf.status, 200);
    assert.deepEqual([rf.body.delivered, rf.body.status_code], [false, 500]);
    assert.match(rf.body.reason, /answered 500: receiver is down/);
  });

  test('without SMTP_URL an EMAIL channel can be made, and sending says why it cannot', async () => {
    const bare = await startTestApp({ config: { webhookAllowPrivateTargets: true } });
    try {
      const o = await seedOrganization(bare);
      const r = await bare.request('POST', `/organization/${o.id}/notificationChannel`, { token: o.token, body: { name: 'mail', kind: 'EMAIL', recipients: ['x@berth.test'] } });
      assert.equal(r.status, 201, r.raw);
      const sent = await bare.request('POST', `/organization/${o.id}/notificationChannel/${r.body.id}/test`, { token: o.token });
      assert.equal(sent.body.delivered, false);
      assert.match(sent.body.reason, /^SMTP_URL is not set/);
    } finally {
      await bare.close();
    }
  });

  test('one message per incident: raised three times, one message per channel; resolved then failed again, a second', async () => {
    const o = await seedOrganization(t);
    await create(o, { name: 'slack', kind: 'SLACK', webhook_url: `${base}/incident/slack` });
    await create(o, { name: 'mail', kind: 'EMAIL', recipients: ['incident@berth.test'] });
    await create(o, { name: 'deploys-only', kind: 'DISCORD', webhook_url: `${base}/incident/discord`, events: ['DEPLOYMENT_FAILED'] });
    const svc = t.ctx.services.notifications;
    const incident = { key: 'backup:db-1', kind: 'BACKUP_FAILED' as const, title: 'orders-db: backup failed', text: 'pg_dump exited 1', link: 'https://berth.test/db/1' };
    const first = await svc.raise(o.id, incident);
    assert.equal(first.opened, true);
    assert.equal((await svc.raise(o.id, incident)).opened, false);
    assert.equal((await svc.raise(o.id, incident)).opened, false);
    await eventually(async () => at('/incident/slack').length >= 1 && mailsTo('incident@berth.test').length >= 1);
    await settle();
    assert.equal(at('/incident/slack').length, 1);
    assert.equal(mailsTo('incident@berth.test').length, 1);
    assert.equal(at('/incident/discord').length, 0, 'a channel that does not carry the kind gets nothing');
    assert.match(at('/incident/slack')[0]!.json.text, /Backup failed: orders-db: backup failed\npg_dump exited 1\nhttps:\/\/berth.test\/db\/1/);
    assert.equal(mailsTo('incident@berth.test')[0]!.subject, '[berth] Backup failed: orders-db: backup failed');
    const [row] = await t.ctx.db.query<{ occurrences: number; messages_sent: number }>('select occurrences, messages_sent from notification_incidents where id = $1', [first.incidentId]);
    assert.deepEqual({ ...row }, { occurrences: 3, messages_sent: 2 });

    assert.equal(await svc.resolve(o.id, incident.key), true);
    assert.equal(await svc.resolve(o.id, incident.key), false);
    assert.equal((await svc.raise(o.id, incident)).opened, true);
    await eventually(async () => at('/incident/slack').length >= 2 && mailsTo('incident@berth.test').length >= 2);
    await settle();
    assert.equal(at('/incident/slack').length, 2);
  });

  test('a failed deployment (BERTH_SIMULATE_FAILURE) sends one message, a second failure none; the next success resolves the incident', async () => {
    const o = await seedOrganization(t);
    await create(o, { name: 'deploys', kind: 'SLACK', webhook_url: `${base}/deploys` });
    const env = await seedEnvironment(t, o);
    const c = await seedService(t, env, 'CONTAINER', { image_name: 'nginx' }, 'checkout-api');
    // the BERTH_ prefix is reserved on the API: the marker is written as the deployments test does
    await t.ctx.db.query(
      `insert into variables (organization_id, project_id, environment_id, service_id, parent_id, scope, key, variable_type, value)
       values ($1, $2, $3, $4, $4, 'CONTAINER', 'BERTH_SIMULATE_FAILURE', 'VALUE', 'deploy')`, [env.organizationId, env.projectId, env.id, c]);
    const deploy = async () => {
      const r = await t.request('POST', `/container/${c}/deploy`, { token: o.token, body: {} });
      assert.equal(r.status, 202, r.raw);
      return eventually(async () => (await t.ctx.db.query<{ status: string }>('select status from deployments where id = $1 and finished_at is not null', [r.body.id]))[0]?.status, 20_000);
    };
    assert.equal(await deploy(), 'DEPLOYMENT_ERROR');
    await eventually(async () => at('/deploys').length >= 1);
    assert.equal(await deploy(), 'DEPLOYMENT_ERROR');
    await settle();
    assert.equal(at('/deploys').length, 1);
    const msg = at('/deploys')[0]!.json;
    assert.match(msg.text, /^Deployment failed: checkout-api \(container\): DEPLOY ended DEPLOYMENT_ERROR/);
    const open = () => t.ctx.db.query('select id from notification_incidents where organization_id = $1 and resolved_at is null', [o.id]);
    assert.equal((await open()).length, 1);
    await t.ctx.db.query(`delete from variables where service_id = $1 and key = 'BERTH_SIMULATE_FAILURE'`, [c]);
    assert.equal(await deploy(), 'DEPLOYED');
    assert.equal((await open()).length, 0);
    assert.equal(await deploy(), 'DEPLOYED');
    assert.equal(at('/deploys').length, 1);
  });

  test('a failed agent run is its workflow\'s incident: one message for two failed runs; the next successful run resolves it', async () => {
    const o = await seedOrganization(t);
    await create(o, { name: 'agents', kind: 'DISCORD', webhook_url: `${base}/agents`, events: ['AGENT_RUN_FAILED'] });
    const env = await seedEnvironment(t, o);
    // the simulated engine fails the deployment of a service whose name says fail-deploy
    const w = await t.request('POST', `/environment/${env.id}/agenticWorkflow`, { token: o.token, body: { name: 'triage-fail-deploy' } });
    assert.equal(w.status, 201, w.raw);
    const run = async () => {
      const r = await t.request('POST', new URL(w.body.webhook.url).pathname, { body: {} });
      assert.ok(r.body.id, r.raw);
      return eventually(async () => {
        const one = (await t.request('GET', `/agenticWorkflow/${w.body.id}/run/${r.body.id}`, { token: o.token })).body;
        return ['SUCCEEDED', 'FAILED', 'CANCELED'].includes(one.status) ? one.status as string : null;
      }, 20_000);
    };
    assert.equal(await run(), 'FAILED');
    await eventually(async () => at('/agents').length >= 1);
    assert.equal(await run(), 'FAILED');
    await settle();
    assert.equal(at('/agents').length, 1);
    assert.match(at('/agents')[0]!.json.embeds[0].title, /^Agent run failed: agentic workflow triage-fail-deploy/);
    const open = () => t.ctx.db.query('select id from notification_incidents where organization_id = $1 and incident_key = $2 and resolved_at is null', [o.id, `agent-run:${w.body.id}`]);
    assert.equal((await open()).length, 1);
    await t.ctx.db.query(`update services set name = 'triage', slug = 'triage' where id = $1`, [w.body.id]);
    assert.equal(await run(), 'SUCCEEDED');
    assert.equal((await open()).length, 0);
  });
});
