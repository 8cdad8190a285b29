// Pure rules of notification channels: the incident kinds a channel carries, what a valid webhook
// URL and recipient list are, the text of a message and its three renderings (a Slack incoming
// webhook's `{text, blocks}`, a Discord webhook's `{content, embeds}`, an e-mail's subject and
// body), and the incident de-duplication decision (one message per incident, not a storm).
import { isIP } from 'node:net';
import { isPrivateAddress } from '../../lib/cidr.ts';

export const NOTIFICATION_KINDS = ['BACKUP_FAILED', 'BACKUP_DRILL_FAILED', 'BACKUP_OVERDUE', 'DEPLOYMENT_FAILED', 'AGENT_RUN_FAILED'] as const;
type NotificationKind = (typeof NOTIFICATION_KINDS)[number];
export const CHANNEL_KINDS = ['SLACK', 'DISCORD', 'EMAIL'] as const;

/** what a caller raises: `key` names the thing that fails (one open incident per key) */
export interface IncidentInput {
  key: string;
  kind: NotificationKind;
  title: string;
  text: string;
  link?: string;
}

/** one message as the channels render it; TEST is the "send a test" message */
export interface Message {
  kind: NotificationKind | 'TEST';
  title: string;
  text: string;
  link: string | null;
  organizationName: string;
  at: Date;
}

const LIMITS = { title: 240, text: 3500, key: 500 };

function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

/** null when valid, else the reason (400). Private and loopback hosts are refused unless allowed,
 * as organization webhooks are (decision 0165); a name resolving privately is caught when sending. */
export function webhookUrlProblem(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'webhook_url must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'webhook_url must be an absolute http or https URL';
  if (url.username || url.password) return 'webhook_url must not carry credentials before the host';
  if (!allowPrivate) {
    if (url.protocol !== 'https:') return 'webhook_url must be an https URL';
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) !== 0 && isPrivateAddress(host))) {
      return 'webhook_url must not point to a loopback, private, link-local or metadata address (WEBHOOK_ALLOW_PRIVATE_TARGETS=true allows it, e.g. on-premise)';
    }
  }
  return null;
}

/** the host a reply shows instead of the URL (the URL is the credential) */
export function webhookHost(raw: string): string {
  return new URL(raw).host;
}

const EMAIL = /^[^\s@<>(),;:"[\]]+@[^\s@<>(),;:"[\]]+\.[^\s@<>(),;:"[\]]+$|^[^\s@<>(),;:"[\]]+@localhost$/;

/** null when valid, else the reason (400): at least one address, each a plain addr-spec, no duplicates */
export function recipientsProblem(recipients: readonly string[]): string | null {
  if (recipients.length === 0) return 'recipients must list at least one e-mail address for an EMAIL channel';
  const bad = recipients.find((r) => !EMAIL.test(r));
  if (bad !== undefined) return `recipients: "${clip(bad, 80)}" is not an e-mail address (name@example.com)`;
  const seen = new Set(recipients.map((r) => r.toLowerCase()));
  if (seen.size !== recipients.length) return 'recipients must not repeat an address';
  return null;
}

/** null when valid, else the reason */
export function incidentProblem(i: IncidentInput): string | null {
  if (!(NOTIFICATION_KINDS as readonly string[]).includes(i.kind)) return `unknown incident kind ${i.kind}`;
  if (i.key.length === 0 || i.key.length > LIMITS.key) return 'an incident key is 1 to 500 characters';
  return null;
}

/** the de-duplication decision: a failure while its incident is open sends nothing */
export function incidentDecision(openIncident: { id: string } | null): { action: 'OPEN' } | { action: 'REPEAT'; id: string } {
  return openIncident ? { action: 'REPEAT', id: openIncident.id } : { action: 'OPEN' };
}

const LABELS: Record<Message['kind'], string> = {
  BACKUP_FAILED: 'Backup failed',
  BACKUP_DRILL_FAILED: 'Restore drill failed',
  BACKUP_OVERDUE: 'Backup overdue',
  DEPLOYMENT_FAILED: 'Deployment failed',
  AGENT_RUN_FAILED: 'Agent run failed',
  TEST: 'Test message',
};

export function testMessage(organizationName: string, channelName: string, at = new Date()): Message {
  return {
    kind: 'TEST', title: `Test message for channel ${channelName}`,
    text: `This channel receives berth's failure notifications for organization ${organizationName}: one message when something fails, none while it keeps failing, a new one if it fails again after recovering.`,
    link: null, organizationName, at,
  };
}

export function incidentMessage(i: { kind: string; title: string; body: string; link: string | null }, organizationName: string, at: Date): Message {
  const kind = (i.kind in LABELS ? i.kind : 'TEST') as Message['kind'];
  return { kind, title: i.title, text: i.body, link: i.link, organizationName, at };
}

function headline(m: Message): string {
  return clip(`${LABELS[m.kind]}: ${m.title}`, LIMITS.title);
}

/** Slack incoming webhook (and compatible: Mattermost, Rocket.Chat): `text` is the fallback every client shows */
export function slackPayload(m: Message): { text: string; blocks: unknown[] } {
  const text = clip(m.text, LIMITS.text);
  const blocks: unknown[] = [
    { type: 'header', text: { type: 'plain_text', text: headline(m).slice(0, 150), emoji: true } },
    { type: 'section', text: { type: 'mrkdwn', text: text || '(no details)' } },
  ];
  if (m.link) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `<${m.link}|Open in berth>` } });
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `berth · ${m.organizationName} · ${m.kind} · ${m.at.toISOString()}` }] });
  return { text: `${headline(m)}\n${text}${m.link ? `\n${m.link}` : ''}`, blocks };
}

/** Discord webhook: `content` (2000 characters at most) and one embed (title 256, description 4096) */
export function discordPayload(m: Message): { content: string; embeds: Array<Record<string, unknown>> } {
  const embed: Record<string, unknown> = {
    title: headline(m).slice(0, 256),
    description: clip(m.text, LIMITS.text) || '(no details)',
    color: m.kind === 'TEST' ? 0x2f80ed : 0xd93025,
    footer: { text: `berth · ${m.organizationName} · ${m.kind}` },
    timestamp: m.at.toISOString(),
  };
  if (m.link) embed.url = m.link;
  return { content: clip(`**${headline(m)}**`, 2000), embeds: [embed] };
}

export function emailMessage(m: Message): { subject: string; text: string } {
  const lines = [headline(m), '', m.text];
  if (m.link) lines.push('', m.link);
  lines.push('', `-- berth · organization ${m.organizationName} · ${m.kind} · ${m.at.toISOString()}`);
  return { subject: `[berth] ${headline(m)}`.replace(/[\r\n]+/g, ' '), text: lines.join('\n') };
}

/** whether a webhook answer means "delivered", "try again later" or "give up" */
export function webhookOutcome(status: number | null, refused: boolean): 'DELIVERED' | 'RETRY' | 'GIVE_UP' {
  if (refused) return 'GIVE_UP';
  if (status === null) return 'RETRY';
  if (status >= 200 && status < 300) return 'DELIVERED';
  return status === 408 || status === 429 || status >= 500 ? 'RETRY' : 'GIVE_UP';
}
