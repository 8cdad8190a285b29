-- Foundation: users seen through OIDC, organizations, their members and invitations, API tokens,
-- and the stored replies of idempotent POSTs.

create table users (
  id               uuid primary key default gen_random_uuid(),
  sub              text not null unique,
  email            text,
  name             text,
  created_at       timestamptz not null default now(),
  updated_at       timestamptz,
  last_activity_at timestamptz
);
create index users_email_idx on users (lower(email));

create table organizations (
  id            uuid primary key default gen_random_uuid(),
  name          text not null,
  description   text,
  plan          text not null default 'FREE',
  website_url   text,
  repository    text,
  logo_url      text,
  icon_url      text,
  admin_emails  jsonb not null default '[]'::jsonb,
  owner_user_id uuid references users (id) on delete set null,
  created_at    timestamptz not null default now(),
  updated_at    timestamptz
);
create unique index organizations_name_key on organizations (lower(name));
create index organizations_created_idx on organizations (created_at, id);

create table memberships (
  organization_id uuid not null references organizations (id) on delete cascade,
  user_id         uuid not null references users (id) on delete cascade,
  role            text not null check (role in ('OWNER', 'ADMIN', 'DEVOPS', 'VIEWER')),
  created_at      timestamptz not null default now(),
  updated_at      timestamptz,
  primary key (organization_id, user_id)
);
create index memberships_user_idx on memberships (user_id);

create table invitations (
  id              uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  email           text not null,
  role            text not null check (role in ('ADMIN', 'DEVOPS', 'VIEWER')),
  inviter_user_id uuid references users (id) on delete set null,
  inviter_name    text not null,
  status          text not null default 'PENDING' check (status in ('PENDING', 'ACCEPTED')),
  created_at      timestamptz not null default now(),
  updated_at      timestamptz,
  expires_at      timestamptz not null
);
create unique index invitations_pending_email_key on invitations (organization_id, lower(email)) where status = 'PENDING';
create index invitations_org_idx on invitations (organization_id, created_at);

create table api_tokens (
  id                 uuid primary key default gen_random_uuid(),
  organization_id    uuid not null references organizations (id) on delete cascade,
  name               text not null,
  description        text not null default '',
  role               text not null check (role in ('OWNER', 'ADMIN', 'DEVOPS', 'VIEWER')),
  token_hash         text not null unique,
  created_by_user_id uuid references users (id) on delete set null,
  created_by_name    text,
  created_at         timestamptz not null default now(),
  updated_at         timestamptz,
  last_used_at       timestamptz
);
create unique index api_tokens_org_name_key on api_tokens (organization_id, lower(name));
create index api_tokens_org_idx on api_tokens (organization_id, created_at);

create table idempotency_keys (
  principal    text not null,
  key          text not null,
  request_hash text not null,
  status       integer,
  body         text,
  content_type text,
  created_at   timestamptz not null default now(),
  primary key (principal, key)
);
create index idempotency_keys_created_idx on idempotency_keys (created_at);
