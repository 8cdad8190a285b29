// Run-scoped credentials (decision 0197), for other modules: the workflows module mints them when
// an agentic workflow run starts and revokes them when it ends; authentication (identity) finds
// the live one a secret names. The SQL is in run-credentials.repo.ts, reached only through here.
export { findLiveCredential, mintRunCredential, revokeRunCredentials, RUN_CREDENTIAL_PREFIX } from './run-credentials.repo.ts';
