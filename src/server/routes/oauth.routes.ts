import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../../config.js';
import {
  checkAuthorization,
  decideAuthorization,
  exchangeToken,
  OAuthError,
  type OAuthSite,
  registerClient,
  revokeToken,
} from '../../domain/oauth.js';
import { listGrants, revokeGrant } from '../../domain/oauth-grants.js';
import { WindowCounter } from '../../domain/rate-limit.js';
import { idParam, successResponse } from '../../shared/common.js';
import {
  authorizationCheckOut,
  authorizationDecisionBody,
  authorizationDecisionOut,
  authorizationRequest,
  authorizationServerOut,
  OAUTH_SCOPES,
  oauthErrorOut,
  oauthGrantItemOut,
  protectedResourceOut,
  registerClientBody,
  registeredClientOut,
  TOKEN_AUTH_METHODS,
  tokenOut,
} from '../../shared/oauth.js';
import { acceptForms } from '../plugins/forms.js';

/**
 * OAuth 2.1 for remote MCP clients (docs/mcp.md, "Sign-in with OAuth"). The authorization server
 * lives under the base path (`/api/oauth/*`, the consent page at `/oauth/authorize` in the web
 * app); the two metadata documents sit at the origin's root, where RFC 9728 and RFC 8414 put them
 * (`oauthMetadataRoutes`, registered outside the base path).
 */

/** The issuer and the MCP endpoint as the client sees them: DOCKET_PUBLIC_URL, else the request's origin. */
export function oauthSite(req: FastifyRequest, config: Config): OAuthSite {
  const issuer = (config.publicUrl ?? `${req.protocol}://${req.host}${config.basePath}`).replace(/\/+$/, '');
  return { issuer, resource: `${issuer}/api/mcp` };
}

/** `/.well-known/<kind><issuer path>`, at the root of the issuer's origin. */
function wellKnown(site: OAuthSite, kind: string, suffix = '') {
  const u = new URL(site.issuer);
  return `${u.origin}/.well-known/${kind}${u.pathname.replace(/\/+$/, '')}${suffix}`;
}

/** The protected resource metadata URL of /api/mcp, for its 401's WWW-Authenticate. */
export const resourceMetadataUrl = (site: OAuthSite) =>
  wellKnown(site, 'oauth-protected-resource', '/api/mcp');

const noStore = (reply: FastifyReply) =>
  reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache');

function oauthFail(reply: FastifyReply, err: unknown) {
  if (!(err instanceof OAuthError)) throw err;
  if (err.status === 401) reply.header('WWW-Authenticate', 'Basic realm="docket"');
  return noStore(reply).status(err.status).send({ error: err.code, error_description: err.description });
}

/** A form's string fields (JSON bodies are read the same way). */
function formOf(body: unknown): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  if (body && typeof body === 'object')
    for (const [k, v] of Object.entries(body)) if (typeof v === 'string') out[k] = v;
  return out;
}

const tags = ['OAuth'];

export const oauthRoutes: FastifyPluginAsyncZod = async (app) => {
  const { config } = app.services;
  const registrations = new WindowCounter(
    app.services.db,
    'oauth-register',
    config.registerLimit,
    config.registerWindowSeconds * 1000,
  );

  app.post(
    '/api/oauth/register',
    {
      schema: {
        tags,
        summary: 'Dynamic client registration (RFC 7591)',
        body: registerClientBody,
        response: { 201: registeredClientOut, 400: oauthErrorOut },
      },
      attachValidation: true,
      config: { auth: 'public', anyOrigin: true, oauthErrors: true },
      onRequest: async (req) => {
        await registrations.take(req.ip);
      },
    },
    async (req, reply) => {
      try {
        if (req.validationError) {
          const parsed = registerClientBody.safeParse(req.body);
          const issue = parsed.success ? undefined : parsed.error.issues[0];
          throw new OAuthError(
            400,
            'invalid_client_metadata',
            issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'Invalid client metadata',
          );
        }
        return noStore(reply)
          .status(201)
          .send(await registerClient(req.ctx, req.body));
      } catch (err) {
        return oauthFail(reply, err);
      }
    },
  );

  app.get(
    '/api/oauth/authorization',
    {
      schema: {
        tags,
        summary: 'Check an authorization request for the consent page (signed in, not with a key)',
        querystring: authorizationRequest,
        response: { 200: authorizationCheckOut },
      },
      config: { apiKey: false },
    },
    async (req, reply) =>
      noStore(reply).send(await checkAuthorization(req.ctx, req.query, oauthSite(req, config))),
  );

  app.post(
    '/api/oauth/authorization',
    {
      schema: {
        tags,
        summary: 'Allow (with a scope) or deny a client: answers where to send the browser',
        body: authorizationDecisionBody,
        response: { 200: authorizationDecisionOut },
      },
      config: { apiKey: false },
    },
    async (req, reply) =>
      noStore(reply).send(await decideAuthorization(req.ctx, req.body, oauthSite(req, config))),
  );

  // The client's requests are HTML forms (RFC 6749): forms are parsed in this scope only.
  await app.register(async (scope) => {
    acceptForms(scope);
    const forms = scope.withTypeProvider<ZodTypeProvider>();
    forms.post(
      '/api/oauth/token',
      {
        schema: {
          tags,
          summary: 'Token endpoint: authorization_code (with PKCE) and refresh_token grants',
          response: { 200: tokenOut, 400: oauthErrorOut, 401: oauthErrorOut },
        },
        config: { auth: 'public', anyOrigin: true, oauthErrors: true },
      },
      async (req, reply) => {
        try {
          const tokens = await exchangeToken(
            req.ctx,
            formOf(req.body),
            req.headers.authorization,
            oauthSite(req, config),
          );
          return noStore(reply).send(tokens);
        } catch (err) {
          return oauthFail(reply, err);
        }
      },
    );
    forms.post(
      '/api/oauth/revoke',
      {
        schema: {
          tags,
          summary: 'Token revocation (RFC 7009): a refresh token ends its grant',
          response: { 200: z.object({}), 400: oauthErrorOut, 401: oauthErrorOut },
        },
        config: { auth: 'public', anyOrigin: true, oauthErrors: true },
      },
      async (req, reply) => {
        try {
          await revokeToken(req.ctx, formOf(req.body), req.headers.authorization);
          return noStore(reply).send({});
        } catch (err) {
          return oauthFail(reply, err);
        }
      },
    );
  });

  app.get(
    '/api/me/oauth-grants',
    {
      schema: {
        tags: ['Current user'],
        summary: 'The MCP clients I signed in with OAuth (never their tokens)',
        response: { 200: z.array(oauthGrantItemOut) },
      },
      config: { apiKey: false },
    },
    async (req) => listGrants(req.ctx),
  );

  app.delete(
    '/api/me/oauth-grants/:grantId',
    {
      schema: {
        tags: ['Current user'],
        summary: 'Revoke a client: its tokens stop working at once',
        params: z.object({ grantId: idParam }),
        response: { 200: successResponse },
      },
      config: { apiKey: false },
    },
    async (req) => revokeGrant(req.ctx, req.params.grantId),
  );
};

/** The two metadata documents, at the origin's root (registered outside the base path). */
export const oauthMetadataRoutes: FastifyPluginAsyncZod = async (app) => {
  const { config } = app.services;
  const base = config.basePath;

  app.get(
    `/.well-known/oauth-protected-resource${base}/api/mcp`,
    {
      schema: { hide: true, response: { 200: protectedResourceOut } },
      config: { auth: 'public' },
    },
    async (req) => {
      const site = oauthSite(req, config);
      return {
        resource: site.resource,
        authorization_servers: [site.issuer],
        scopes_supported: [...OAUTH_SCOPES],
        bearer_methods_supported: ['header'],
        resource_name: 'Docket',
      };
    },
  );

  app.get(
    `/.well-known/oauth-authorization-server${base}`,
    {
      schema: { hide: true, response: { 200: authorizationServerOut } },
      config: { auth: 'public' },
    },
    async (req) => {
      const site = oauthSite(req, config);
      return {
        issuer: site.issuer,
        authorization_endpoint: `${site.issuer}/oauth/authorize`,
        token_endpoint: `${site.issuer}/api/oauth/token`,
        registration_endpoint: `${site.issuer}/api/oauth/register`,
        revocation_endpoint: `${site.issuer}/api/oauth/revoke`,
        scopes_supported: [...OAUTH_SCOPES],
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: [...TOKEN_AUTH_METHODS],
        revocation_endpoint_auth_methods_supported: [...TOKEN_AUTH_METHODS],
        authorization_response_iss_parameter_supported: true,
      };
    },
  );
};
