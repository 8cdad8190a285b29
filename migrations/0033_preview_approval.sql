-- Pull requests from forks wait for approval (issue 40, decision 0748). A pull request whose head
-- branch is in another repository opens no preview (a copy would carry the environment's secrets)
-- until someone who may deploy the environment approves its head commit: the preview is
-- AWAITING_APPROVAL until then, and again at each new commit. `approved_commit`: the head commit
-- last approved (what the copy runs); `approved_by`/`approved_at`: who approved it and when.
-- `body`: the pull request's description (at most 64 KiB), for whoever reads the pull request here.
alter table previews
  add column body            text,
  add column from_fork       boolean not null default false,
  add column approved_commit text,
  add column approved_by     text,
  add column approved_at     timestamptz;
alter table previews drop constraint previews_state_check;
alter table previews add constraint previews_state_check
  check (state in ('OPEN', 'REFUSED', 'FAILED', 'CLOSED', 'AWAITING_APPROVAL'));
