// Sending one message to one channel: SLACK and DISCORD through the organization webhooks' guarded
// HTTP POST (private addresses refused on the address actually connected, decision 0165), EMAIL
// through nodemailer to the SMTP server of SMTP_URL. nodemailer is loaded on the first e-mail, so
// a berth that sends none never carries it (decision 0705). The outcome says whether a retry can help.
import { postJson } from '../webhooks/webhooks.http.ts';
import { discordPayload, emailMessage, slackPayload, webhookOutcome, type Message } from './notifications.rules.ts';

export interface SendTarget {
  kind: string;
  /** opened from its seal (SLACK, DISCORD) */
  webhookUrl: string | null;
  recipients: string[];
}

export interface SendSettings {
  allowPrivate: boolean;
  smtpUrl: string | undefined;
  smtpFrom: string;
  timeoutMs: number;
}

export interface SendOutcome {
  delivered: boolean;
  statusCode: number | null;
  /** null when delivered */
  reason: string | null;
  /** a later attempt may succeed (timeouts, 5xx, 429, a refused SMTP connection) */
  retry: boolean;
  durationMs: number;
}

async function sendWebhook(url: string, body: unknown, s: SendSettings): Promise<SendOutcome> {
  const r = await postJson(url, JSON.stringify(body), {}, { allowPrivate: s.allowPrivate, timeoutMs: s.timeoutMs });
  const outcome = webhookOutcome(r.status, r.refused);
  const excerpt = r.body ? `: ${r.body.slice(0, 200)}` : '';
  const reason = outcome === 'DELIVERED' ? null : r.error ?? `the receiver answered ${r.status}${excerpt}`;
  return { delivered: outcome === 'DELIVERED', statusCode: r.status, reason, retry: outcome === 'RETRY', durationMs: r.durationMs };
}

/** SMTP reply codes 4xx are transient; connection errors too; 5xx and authentication are not */
function smtpRetry(err: { responseCode?: number; code?: string }): boolean {
  if (typeof err.responseCode === 'number') return err.responseCode < 500;
  return err.code !== 'EAUTH' && err.code !== 'EENVELOPE';
}

async function sendEmail(m: Message, recipients: string[], s: SendSettings): Promise<SendOutcome> {
  const startedAt = Date.now();
  if (!s.smtpUrl) return { delivered: false, statusCode: null, reason: 'SMTP_URL is not set: berth has no SMTP server to send e-mail through', retry: false, durationMs: 0 };
  const { createTransport } = await import('nodemailer');
  // the URL's own settings (host, port, credentials, ?tls options) win over these defaults
  const transport = createTransport({ url: s.smtpUrl, connectionTimeout: s.timeoutMs, greetingTimeout: s.timeoutMs, socketTimeout: s.timeoutMs });
  try {
    const { subject, text } = emailMessage(m);
    const info = await transport.sendMail({ from: s.smtpFrom, to: recipients, subject, text });
    const rejected = (info.rejected ?? []).map(String);
    if (rejected.length === recipients.length) {
      return { delivered: false, statusCode: null, reason: `SMTP: every recipient was refused (${rejected.join(', ')})`, retry: false, durationMs: Date.now() - startedAt };
    }
    return { delivered: true, statusCode: null, reason: null, retry: false, durationMs: Date.now() - startedAt };
  } catch (err) {
    const e = err as Error & { responseCode?: number; code?: string };
    return { delivered: false, statusCode: null, reason: `SMTP: ${e.message}`, retry: smtpRetry(e), durationMs: Date.now() - startedAt };
  } finally {
    transport.close();
  }
}

export async function sendToChannel(target: SendTarget, m: Message, s: SendSettings): Promise<SendOutcome> {
  if (target.kind === 'EMAIL') return sendEmail(m, target.recipients, s);
  if (!target.webhookUrl) return { delivered: false, statusCode: null, reason: 'the channel has no webhook URL', retry: false, durationMs: 0 };
  return sendWebhook(target.webhookUrl, target.kind === 'DISCORD' ? discordPayload(m) : slackPayload(m), s);
}
