-- LLM providers may name an Anthropic-compatible endpoint (a corporate proxy, a LiteLLM gateway)
-- that runs using the provider call instead of the type's default; '' means none. A workflow's
-- own model.settings base_url wins over it (docs/decisions/0191).
alter table llm_providers add column base_url text not null default '';
