// What the console knows of OIDC before loading the sign-in code (oidc.ts, its own chunk).
export interface OidcConfig { issuer: string; client_id: string; audience: string | null }

export const CALLBACK_PATH = '/ui/oidc/callback';
