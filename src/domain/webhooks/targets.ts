import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where a hook may send: only to public unicast addresses, unless DOCKET_WEBHOOK_ALLOW_PRIVATE=true.
 * Checked when a hook is saved (an address, or a name that resolves to one) and again on every
 * delivery, on the addresses the connection really uses (the connect-time lookup below), so a
 * name that later resolves to a private address (DNS rebinding) is refused too.
 */

/** True for an address a hook may reach: ipaddr.js's `unicast` range (not loopback, private, …). */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let a = ipaddr.parse(address);
  if (a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress()) a = (a as ipaddr.IPv6).toIPv4Address();
  return a.range() === 'unicast';
}

/** The URL's host without IPv6 brackets. */
export const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

export class RefusedTarget extends Error {}

/** How long saving a hook waits for its name to resolve. */
const SAVE_LOOKUP_MS = 2000;

/**
 * At save time: refuses a private address, or a name that resolves only or partly to one. A name
 * that does not resolve now, or not within two seconds, is accepted (the delivery checks it again).
 */
export async function checkTarget(url: string, allowPrivate: boolean): Promise<void> {
  if (allowPrivate) return;
  const host = hostOf(new URL(url));
  if (net.isIP(host)) {
    if (!isPublicAddress(host)) throw new RefusedTarget(host);
    return;
  }
  if (host === 'localhost' || host.endsWith('.localhost')) throw new RefusedTarget(host);
  // A slow resolver does not hold the request for long: the delivery checks the name again anyway.
  const found = await Promise.race([
    dns.promises.lookup(host, { all: true }).catch(() => []),
    new Promise<dns.LookupAddress[]>((r) => setTimeout(() => r([]), SAVE_LOOKUP_MS).unref()),
  ]);
  const bad = found.find((f) => !isPublicAddress(f.address));
  if (bad) throw new RefusedTarget(`${host} (${bad.address})`);
}

/**
 * The `lookup` of a delivery's connection: resolves the name and fails when any address is not
 * public, so the check and the connection use the same answer.
 */
export const guardedLookup: net.LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 4);
    const list = addresses as dns.LookupAddress[];
    const bad = list.find((a) => !isPublicAddress(a.address));
    if (bad || list.length === 0)
      return callback(new RefusedTarget(`${hostname} resolves to ${bad?.address ?? 'nothing'}`), '', 4);
    if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
    callback(null, list[0].address, list[0].family);
  });
};
