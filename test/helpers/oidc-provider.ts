/**
 * A real OpenID provider for the single sign-on tests: the OpenID-certified `oidc-provider`
 * package, run as its own process: `node --import tsx test/helpers/oidc-provider.ts <accounts.json>`
 * with OIDC_REDIRECT_URIS (comma-separated). It prints `listening at http://127.0.0.1:<port>`.
 *
 * Clients: `docket` (secret `docket-secret`, client_secret_basic), `docket-public` (no secret,
 * PKCE only), and `docket-loopback` (secret `docket-secret`; a native client, so its redirect URI
 * http://127.0.0.1/api/auth/oidc/callback matches on any port: for a Docket whose port is chosen
 * after the provider starts). Its development sign-in pages take any login: the login is the account's subject, and
 * its claims (email, email_verified, name, preferred_username) are read from <accounts.json> at
 * each sign-in, so a test can add accounts while it runs.
 */
import fs from 'node:fs';
import http from 'node:http';
import Provider from 'oidc-provider';

const file = process.argv[2];
if (!file) throw new Error('usage: oidc-provider.ts <accounts.json>');
const redirectUris = (process.env.OIDC_REDIRECT_URIS ?? '').split(',').filter(Boolean);

const server = http.createServer();
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'docket',
        client_secret: 'docket-secret',
        redirect_uris: redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
      {
        client_id: 'docket-loopback',
        client_secret: 'docket-secret',
        application_type: 'native',
        redirect_uris: ['http://127.0.0.1/api/auth/oidc/callback'],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
      {
        client_id: 'docket-public',
        token_endpoint_auth_method: 'none',
        redirect_uris: redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    pkce: { required: () => true, methods: ['S256'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'preferred_username'] },
    cookies: { keys: ['docket-test-provider-cookie-key'] },
    features: { devInteractions: { enabled: true } },
    async findAccount(_ctx, sub) {
      const accounts = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, Record<string, unknown>>;
      const claims = accounts[sub] ?? {};
      return { accountId: sub, claims: async () => ({ sub, ...claims }) };
    },
  });
  server.on('request', provider.callback());
  process.stdout.write(`listening at ${issuer}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
