/**
 * The client side of OAuth sign-in as an MCP client does it: the SDK's `OAuthClientProvider` with
 * the client's own storage (registration, tokens, the PKCE verifier), and the consent page's two
 * requests made as the signed-in user, for the tests that do not drive a browser.
 */

import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';

export class MemoryOAuthProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  /** The last authorization URL the SDK would open in a browser. */
  authorizationUrl: URL | undefined;

  constructor(
    readonly redirectUrl = 'http://127.0.0.1:33418/callback',
    readonly extra: Partial<OAuthClientMetadata> = {},
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test assistant',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...this.extra,
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** An SDK client on `<base>/api/mcp` that signs in with the provider. */
export function oauthTransport(base: string, provider: OAuthClientProvider) {
  return new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), { authProvider: provider });
}

export const newClient = () => new Client({ name: 'oauth-tests', version: '1.0.0' });

/**
 * What the consent page does for a signed-in user: check the request, then allow it with a scope
 * (or deny it). Answers where the browser is sent: the client's redirect URI with a code or error.
 */
export async function consent(
  base: string,
  cookie: string,
  authorizationUrl: URL,
  decision: { approve: boolean; grantScope?: 'read' | 'write' },
): Promise<URL> {
  const params = Object.fromEntries(authorizationUrl.searchParams);
  const check = await fetch(`${base}/api/oauth/authorization?${authorizationUrl.searchParams}`, {
    headers: { cookie },
  });
  const checked = await check.json();
  if (check.status !== 200) throw new Error(`consent check: ${check.status} ${JSON.stringify(checked)}`);
  if (checked.kind === 'redirect') return new URL(checked.redirectTo);
  const res = await fetch(`${base}/api/oauth/authorization`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json' },
    body: JSON.stringify({ ...params, ...decision }),
  });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`consent: ${res.status} ${JSON.stringify(body)}`);
  return new URL(body.redirectTo);
}
