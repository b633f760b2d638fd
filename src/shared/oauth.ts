/**
 * Contracts of OAuth 2.1 sign-in for remote MCP clients (docs/mcp.md, "Sign-in with OAuth"):
 * the metadata documents (RFC 9728, RFC 8414), dynamic client registration (RFC 7591), the
 * authorization request and consent, the token and revocation endpoints, and my grants.
 */
import { z } from 'zod';
import { KEY_SCOPES } from './security.js';

/** The scopes a client may ask for: those of the scoped API keys (`write` includes reading). */
export const OAUTH_SCOPES = KEY_SCOPES;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

/** An OAuth error answer (RFC 6749 section 5.2, RFC 7591 section 3.2.2). */
export const oauthErrorOut = z.object({ error: z.string(), error_description: z.string().optional() });

/** RFC 9728 protected resource metadata of /api/mcp. */
export const protectedResourceOut = z.object({
  resource: z.string(),
  authorization_servers: z.array(z.string()),
  scopes_supported: z.array(z.string()),
  bearer_methods_supported: z.array(z.string()),
  resource_name: z.string(),
  resource_documentation: z.string().optional(),
});

/** RFC 8414 authorization server metadata. */
export const authorizationServerOut = z.object({
  issuer: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  registration_endpoint: z.string(),
  revocation_endpoint: z.string(),
  scopes_supported: z.array(z.string()),
  response_types_supported: z.array(z.string()),
  response_modes_supported: z.array(z.string()),
  grant_types_supported: z.array(z.string()),
  code_challenge_methods_supported: z.array(z.string()),
  token_endpoint_auth_methods_supported: z.array(z.string()),
  revocation_endpoint_auth_methods_supported: z.array(z.string()),
  authorization_response_iss_parameter_supported: z.boolean(),
});

export const TOKEN_AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic'] as const;

const text = (max: number) => z.string().max(max);

/**
 * RFC 7591 client metadata, as a client sends it. Unknown members are ignored (section 2), the
 * ones Docket uses are checked; only the authorization code grant (with refresh) is offered.
 */
export const registerClientBody = z.object({
  redirect_uris: z.array(text(2000).min(1)).min(1).max(10),
  client_name: text(200).optional(),
  client_uri: text(2000).optional(),
  logo_uri: text(2000).optional(),
  scope: text(200).optional(),
  grant_types: z.array(text(100)).max(10).optional(),
  response_types: z.array(text(100)).max(10).optional(),
  token_endpoint_auth_method: text(100).optional(),
  software_id: text(200).optional(),
  software_version: text(200).optional(),
});

/** RFC 7591 client information response. */
export const registeredClientOut = z.object({
  client_id: z.string(),
  client_id_issued_at: z.number().int(),
  client_secret: z.string().optional(),
  client_secret_expires_at: z.number().int().optional(),
  client_name: z.string(),
  client_uri: z.string().optional(),
  redirect_uris: z.array(z.string()),
  grant_types: z.array(z.string()),
  response_types: z.array(z.string()),
  token_endpoint_auth_method: z.enum(TOKEN_AUTH_METHODS),
  scope: z.string(),
});

/**
 * The authorization request (RFC 6749 section 4.1.1 with PKCE, RFC 7636, and RFC 8707 `resource`),
 * as the consent page passes it on from its address.
 */
export const authorizationRequest = z.object({
  response_type: text(100).optional(),
  client_id: text(200),
  redirect_uri: text(2000).optional(),
  scope: text(200).optional(),
  state: text(2000).optional(),
  code_challenge: text(200).optional(),
  code_challenge_method: text(100).optional(),
  resource: text(2000).optional(),
});
export type AuthorizationRequest = z.infer<typeof authorizationRequest>;

/**
 * GET /api/oauth/authorization: what the consent page shows, or (for a request that can be
 * answered to the client) where to send the browser back with the error.
 */
export const authorizationCheckOut = z.union([
  z.object({
    kind: z.literal('consent'),
    client: z.object({ id: z.string(), name: z.string(), uri: z.string().nullable() }),
    redirectUri: z.string(),
    /** The scopes the user may grant: what the client asked for (both when it did not say). */
    scopes: z.array(z.enum(OAUTH_SCOPES)),
  }),
  z.object({ kind: z.literal('redirect'), redirectTo: z.string() }),
]);

/** POST /api/oauth/authorization: the user's answer. */
export const authorizationDecisionBody = authorizationRequest.extend({
  approve: z.boolean(),
  /** The scope granted: `read` or `write` (required to approve). */
  grantScope: z.enum(OAUTH_SCOPES).optional(),
});
export const authorizationDecisionOut = z.object({ redirectTo: z.string() });

/** The token endpoint's answer (RFC 6749 section 5.1). */
export const tokenOut = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
  refresh_token: z.string(),
  scope: z.enum(OAUTH_SCOPES),
});

/** One client I let act for me (GET /api/me/oauth-grants), listed beside the API keys. */
export const oauthGrantItemOut = z.object({
  id: z.string(),
  clientId: z.string(),
  clientName: z.string(),
  clientUri: z.string().nullable(),
  scope: z.enum(OAUTH_SCOPES),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
});
export type OAuthGrantItemOut = z.infer<typeof oauthGrantItemOut>;
