import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where a hook may send: only to public unicast addresses, unless DOCKET_WEBHOOK_ALLOW_PRIVATE=true.
 * Checked when a hook is saved (an address, or a name that resolves to one) and again on every
 * delivery, on the addresses the connection really uses (the connect-time lookup below), so a
 * name that later resolves to a private address (DNS rebinding) is refused too.
 */

/**
 * True for an address a hook may reach: ipaddr.js's `unicast` range (not loopback, private, …).
 * An IPv6 address that carries an IPv4 address is judged by that IPv4 address (see embeddedIPv4).
 */
export function isPublicAddress(address: string): boolean {
  const text = address.includes(':') && address.includes('.') ? ipv6WithoutDots(address) : address;
  if (!text || !ipaddr.isValid(text)) return false;
  const a = ipaddr.parse(text);
  if (a.kind() === 'ipv4') return a.range() === 'unicast';
  const v6 = a as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded === 'refuse') return false;
  if (embedded) return embedded.range() === 'unicast';
  return v6.range() === 'unicast';
}

/**
 * An IPv6 address written with a dotted IPv4 tail, in hexadecimal (`::8.8.8.8` is `::808:808`):
 * ipaddr.js reads `::a.b.c.d` as IPv4-mapped, which it is not. Null when it is not an address.
 */
function ipv6WithoutDots(address: string): string | null {
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
}

/**
 * The IPv4 address an IPv6 address stands for, where a network may deliver it to that IPv4 address:
 * IPv4-mapped `::ffff:0:0/96` and IPv4-translated `::ffff:0:0:0/96` (the last 32 bits), NAT64's
 * well-known prefix `64:ff9b::/96` (the last 32 bits), and 6to4 `2002::/16` (bits 16-47).
 * `'refuse'` for ranges refused whatever they carry: IPv4-compatible `::/96` (deprecated by RFC
 * 4291, `::` and `::1` included, and never a public service's address) and NAT64's local-use
 * prefix `64:ff9b:1::/48` (RFC 8215, a network's own translator). Null for any other address.
 */
export function embeddedIPv4(a: ipaddr.IPv6): ipaddr.IPv4 | 'refuse' | null {
  const p = a.parts;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
  const zero = (from: number, to: number) => p.slice(from, to).every((x) => x === 0);
  if (zero(0, 6)) return 'refuse';
  if (zero(0, 5) && p[5] === 0xffff) return v4(p[6], p[7]);
  if (zero(0, 4) && p[4] === 0xffff && p[5] === 0) return v4(p[6], p[7]);
  if (p[0] === 0x64 && p[1] === 0xff9b && zero(2, 6)) return v4(p[6], p[7]);
  if (p[0] === 0x64 && p[1] === 0xff9b && p[2] === 1) return 'refuse';
  if (p[0] === 0x2002) return v4(p[1], p[2]);
  return null;
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
