// Pure rules of run-scoped credentials (decision 0197).

/** the secret's prefix: how authentication tells a run's credential from an API token */
export const RUN_CREDENTIAL_PREFIX = 'brun_';
