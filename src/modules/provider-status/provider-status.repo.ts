// SQL of status on the provider (migration 0032): the reported deployments (provider_reports),
// each pull request's comment and what its preview shows (provider_pull_requests), and the
// tokens a provider said may not write to a repository (provider_denials). A row is posted for by
// one worker at a time: `claim` takes a lease, `release` gives it back.
import type { Queryable } from '../../db/db.ts';
import { iso } from '../../lib/text.ts';
import type { Stage } from './provider-status.rules.ts';

const LEASE_SECONDS = 120;

export interface ReportRow {
  deployment_id: string; organization_id: string; preview_id: string | null; service_id: string; service_name: string; commit_sha: string;
  git_token_id: string | null; repository_url: string | null; posted: Stage | null; external_id: string | null; attempts: number;
  last_error: string | null; skipped: string | null; last_posted_at: Date | null;
}

const REPORT_COLUMNS = `deployment_id, organization_id, preview_id, service_id, service_name, commit_sha, git_token_id, repository_url, posted,
  external_id, attempts, last_error, skipped, last_posted_at`;

export async function ensureReport(tx: Queryable, r: { deploymentId: string; organizationId: string; previewId: string | null; serviceId: string; serviceName: string; commit: string }): Promise<void> {
  await tx.query(
    `insert into provider_reports (deployment_id, organization_id, preview_id, service_id, service_name, commit_sha)
     values ($1, $2, $3, $4, $5, $6) on conflict (deployment_id) do nothing`,
    [r.deploymentId, r.organizationId, r.previewId, r.serviceId, r.serviceName, r.commit]);
}

/** the row with a lease taken, or null (no row, or another worker holds it: `held`) */
export async function claimReport(db: Queryable, deploymentId: string): Promise<{ row: ReportRow | null; held: boolean }> {
  const rows = await db.query<ReportRow>(
    `update provider_reports set lease_until = now() + make_interval(secs => ${LEASE_SECONDS})
      where deployment_id = $1 and (lease_until is null or lease_until < now()) returning ${REPORT_COLUMNS}`, [deploymentId]);
  if (rows[0]) return { row: rows[0], held: false };
  const exists = await db.query('select 1 from provider_reports where deployment_id = $1', [deploymentId]);
  return { row: null, held: exists.length > 0 };
}

export interface ReportChange {
  posted?: Stage; externalId?: string | null; attempts?: number; lastError?: string | null; skipped?: string | null; postedNow?: boolean;
  gitTokenId?: string | null; repositoryUrl?: string | null;
}

export async function updateReport(db: Queryable, deploymentId: string, c: ReportChange): Promise<void> {
  await db.query(
    `update provider_reports set posted = coalesce($2, posted), external_id = coalesce($3, external_id), attempts = coalesce($4, attempts),
       last_error = case when $5::boolean then $6 else last_error end, skipped = case when $7::boolean then $8 else skipped end,
       last_posted_at = case when $9::boolean then now() else last_posted_at end,
       git_token_id = case when $10::boolean then $11::uuid else git_token_id end, repository_url = case when $10::boolean then $12 else repository_url end
     where deployment_id = $1`,
    [deploymentId, c.posted ?? null, c.externalId ?? null, c.attempts ?? null, c.lastError !== undefined, c.lastError ?? null,
      c.skipped !== undefined, c.skipped ?? null, c.postedNow === true, c.gitTokenId !== undefined, c.gitTokenId ?? null, c.repositoryUrl ?? null]);
}

export async function releaseReport(db: Queryable, deploymentId: string): Promise<void> {
  await db.query('update provider_reports set lease_until = null where deployment_id = $1', [deploymentId]);
}

/** the newest reported deployment of each service of a preview */
export async function reportsOfPreview(db: Queryable, previewId: string): Promise<ReportRow[]> {
  return db.query<ReportRow>(
    `select distinct on (service_id) ${REPORT_COLUMNS} from provider_reports where preview_id = $1
      order by service_id, created_at desc, deployment_id`, [previewId]);
}

export interface PullRequestRow {
  preview_id: string; organization_id: string; comment_id: string | null; git_token_id: string | null; repository_url: string | null;
  reason: string | null; last_error: string | null; last_posted_at: Date | null; attempts: number;
}

const PR_COLUMNS = 'preview_id, organization_id, comment_id, git_token_id, repository_url, reason, last_error, last_posted_at, attempts';

export async function ensurePullRequest(tx: Queryable, previewId: string, organizationId: string): Promise<void> {
  await tx.query('insert into provider_pull_requests (preview_id, organization_id) values ($1, $2) on conflict (preview_id) do nothing', [previewId, organizationId]);
}

export async function claimPullRequest(db: Queryable, previewId: string): Promise<{ row: PullRequestRow | null; held: boolean }> {
  const rows = await db.query<PullRequestRow>(
    `update provider_pull_requests set lease_until = now() + make_interval(secs => ${LEASE_SECONDS})
      where preview_id = $1 and (lease_until is null or lease_until < now()) returning ${PR_COLUMNS}`, [previewId]);
  if (rows[0]) return { row: rows[0], held: false };
  const exists = await db.query('select 1 from provider_pull_requests where preview_id = $1', [previewId]);
  return { row: null, held: exists.length > 0 };
}

export interface PullRequestChange {
  commentId?: string | null; gitTokenId?: string | null; repositoryUrl?: string | null; reason?: string | null; lastError?: string | null;
  attempts?: number; postedNow?: boolean;
}

export async function updatePullRequest(db: Queryable, previewId: string, c: PullRequestChange): Promise<void> {
  await db.query(
    `update provider_pull_requests set comment_id = case when $2::boolean then $3 else comment_id end,
       git_token_id = case when $4::boolean then $5::uuid else git_token_id end, repository_url = case when $4::boolean then $6 else repository_url end,
       reason = case when $7::boolean then $8 else reason end, last_error = case when $9::boolean then $10 else last_error end,
       attempts = coalesce($11, attempts), last_posted_at = case when $12::boolean then now() else last_posted_at end
     where preview_id = $1`,
    [previewId, c.commentId !== undefined, c.commentId ?? null, c.gitTokenId !== undefined, c.gitTokenId ?? null, c.repositoryUrl ?? null,
      c.reason !== undefined, c.reason ?? null, c.lastError !== undefined, c.lastError ?? null, c.attempts ?? null, c.postedNow === true]);
}

export async function releasePullRequest(db: Queryable, previewId: string): Promise<void> {
  await db.query('update provider_pull_requests set lease_until = null where preview_id = $1', [previewId]);
}

export interface PreviewReporting { reporting: boolean; reason: string | null; last_error: string | null; last_posted_at: string | null }

/** what each preview shows of its reporting (previews without a row: nothing reported yet) */
export async function reportingOf(db: Queryable, previewIds: readonly string[]): Promise<Map<string, PreviewReporting>> {
  if (previewIds.length === 0) return new Map();
  const rows = await db.query<PullRequestRow>(`select ${PR_COLUMNS} from provider_pull_requests where preview_id = any($1::uuid[])`, [previewIds]);
  return new Map(rows.map((r) => [r.preview_id, { reporting: r.reason === null, reason: r.reason, last_error: r.last_error, last_posted_at: iso(r.last_posted_at) }]));
}

/** the reason the provider refused the token for the repository, while the token is unchanged */
export async function denial(db: Queryable, gitTokenId: string, repositoryKey: string, tokenChangedAt: string): Promise<string | null> {
  const rows = await db.query<{ reason: string }>(
    'select reason from provider_denials where git_token_id = $1 and repository_key = $2 and token_changed_at >= $3::timestamptz',
    [gitTokenId, repositoryKey, tokenChangedAt]);
  return rows[0]?.reason ?? null;
}

export async function recordDenial(db: Queryable, gitTokenId: string, repositoryKey: string, tokenChangedAt: string, reason: string): Promise<void> {
  await db.query(
    `insert into provider_denials (git_token_id, repository_key, token_changed_at, reason) values ($1, $2, $3, $4)
     on conflict (git_token_id, repository_key) do update set token_changed_at = excluded.token_changed_at, reason = excluded.reason, created_at = now()`,
    [gitTokenId, repositoryKey, tokenChangedAt, reason]);
}
