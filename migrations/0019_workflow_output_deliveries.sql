-- Delivering a finished agentic workflow run's result to the workflow's outputs (issue 26,
-- docs/decisions/0192): one delivery per (run, output that has a url), made in the transaction
-- that settles the run, and every attempt at it — the organization webhooks' webhook_events and
-- webhook_attempts, per run. The url and headers are a snapshot of the output when the run
-- finished (a redeliver takes the output's current ones); header values may be credentials, so
-- they are sealed (AES-256-GCM, one JSON array) and only their names are kept in the clear.
-- Deleting a run (or its workflow) deletes its deliveries and their attempts.

create table agentic_workflow_output_deliveries (
  id               uuid primary key default gen_random_uuid(),
  run_id           uuid not null references agentic_workflow_runs (id) on delete cascade,
  output_name      text not null,
  target_url       text not null,
  -- the names of the output's headers, in order (returned); their values are in headers_sealed
  header_names     jsonb not null default '[]'::jsonb,
  -- sealed JSON array of {name, value}; null when the output has no headers
  headers_sealed   text,
  -- the Standard Webhooks message id (`webhook-id`), stable across retries and redeliveries
  message_id       text not null,
  -- the JSON body, built when the run finished: every attempt sends (and signs) the same bytes
  body             text not null,
  status           text not null default 'PENDING' check (status in ('PENDING', 'DELIVERED', 'FAILED')),
  attempts         integer not null default 0,
  last_status_code integer,
  next_attempt_at  timestamptz,
  created_at       timestamptz not null default now(),
  updated_at       timestamptz
);
-- one delivery per output of a run (output names are unique per workflow, case-insensitively)
create unique index agentic_workflow_output_deliveries_run_output_key on agentic_workflow_output_deliveries (run_id, lower(output_name));

create table agentic_workflow_output_attempts (
  id              bigserial primary key,
  delivery_id     uuid not null references agentic_workflow_output_deliveries (id) on delete cascade,
  attempt         integer not null,
  target_url      text not null,
  response_status integer,
  -- the first 1 KB of the answer
  response_body   text,
  error           text,
  duration_ms     integer not null,
  created_at      timestamptz not null default now()
);
create index agentic_workflow_output_attempts_delivery_idx on agentic_workflow_output_attempts (delivery_id, attempt);
