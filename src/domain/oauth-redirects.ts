/**
 * Redirect URIs of OAuth clients (docs/mcp.md, decisions 044 and 058): which ones a client may
 * register, and whether a request's redirect URI is one it registered.
 */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
/**
 * A private-use scheme of a native app (RFC 8252 section 7.1): a domain name the app's maker
 * controls, in reverse order, so it has a dot (`com.example.app:`). Its letters, digits, `+`, `-`
 * and `.` as RFC 3986 allows, each dot between two labels.
 */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/;

const ALLOWED_SCHEMES =
  "https, http on a loopback address (localhost, 127.0.0.1, [::1]), or an app's private-use scheme in reverse-domain form (com.example.app:/callback)";

/**
 * Why a redirect URI cannot be registered, or null when it can (RFC 8252, OAuth 2.1 section 2.3.1):
 * an allow-list of schemes, https, http on a loopback address, and private-use schemes; anything
 * else (`ftp:`, `view-source:`, `javascript:`, `data:`, `file:`, `intent:` …) is refused.
 */
export function redirectUriProblem(uri: string): string | null {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return `redirect_uris: "${uri}" is not an absolute URL`;
  }
  if (u.hash || uri.includes('#')) return `redirect_uris: "${uri}" must not have a fragment`;
  if (u.protocol === 'https:') return null;
  if (u.protocol === 'http:')
    return LOOPBACK.has(u.hostname)
      ? null
      : `redirect_uris: "${uri}": http is allowed only for loopback addresses (localhost, 127.0.0.1, [::1]); use https`;
  if (PRIVATE_USE_SCHEME.test(u.protocol)) return null;
  return `redirect_uris: the scheme ${u.protocol} is not allowed (allowed: ${ALLOWED_SCHEMES})`;
}

/** Exact match, except that a loopback redirect URI may use any port (RFC 8252 section 7.3). */
export function redirectUriMatches(requested: string, registered: string): boolean {
  if (requested === registered) return true;
  let a: URL;
  let b: URL;
  try {
    a = new URL(requested);
    b = new URL(registered);
  } catch {
    return false;
  }
  return (
    LOOPBACK.has(a.hostname) &&
    a.protocol === 'http:' &&
    a.protocol === b.protocol &&
    a.hostname === b.hostname &&
    a.pathname === b.pathname &&
    a.search === b.search &&
    !a.hash
  );
}
