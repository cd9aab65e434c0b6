import dns from 'node:dns';
import net from 'node:net';

/**
 * Where a connector may send requests. Link-local addresses (169.254.0.0/16, fe80::/10; cloud
 * metadata services live there) and the IPv6 metadata address fd00:ec2::254 are refused unless an
 * allowlist entry that is an address or CIDR range covers them. With an org allowlist, a request
 * must also go to a listed host: an exact name, a `*.suffix` wildcard, or an address in a listed
 * range. The check is made on every address the host RESOLVES to, at connect time, so a name that
 * points at a metadata address (or is re-pointed there) is refused too.
 */
export class OutboundPolicy {
  private readonly names = new Set<string>();
  private readonly suffixes: string[] = [];
  private readonly ranges = new net.BlockList();
  private hasRanges = false;

  /** `allowlist` null: no allowlist (any host that is not link-local). */
  constructor(private readonly allowlist: readonly string[] | null) {
    for (const entry of allowlist ?? []) {
      const value = entry.trim().toLowerCase();
      const cidr = /^([0-9a-f:.]+)\/(\d{1,3})$/.exec(value);
      if (cidr?.[1] && net.isIP(cidr[1]) !== 0) {
        this.ranges.addSubnet(cidr[1], Number(cidr[2]), net.isIP(cidr[1]) === 6 ? 'ipv6' : 'ipv4');
        this.hasRanges = true;
      } else if (net.isIP(value) !== 0) {
        this.ranges.addAddress(value, net.isIP(value) === 6 ? 'ipv6' : 'ipv4');
        this.hasRanges = true;
      } else if (value.startsWith('*.')) this.suffixes.push(value.slice(1));
      else this.names.add(value);
    }
  }

  /** True when the host name itself is on the allowlist (or there is none). */
  hostAllowed(hostname: string): boolean {
    if (this.allowlist === null) return true;
    const host = hostname.toLowerCase();
    return this.names.has(host) || this.suffixes.some((suffix) => host.endsWith(suffix));
  }

  /** Why a connection to `address` (resolved from a host) is refused, or null when it is allowed. */
  refusal(address: string, hostAllowed: boolean): string | null {
    const { ip, family } = normalise(address);
    const inRanges = this.hasRanges && this.ranges.check(ip, family);
    if (forbidden.check(ip, family) && !inRanges) {
      return `address ${ip} is link-local or a metadata address; add it to the organisation's connector allowlist to allow it`;
    }
    if (!hostAllowed && !inRanges) return `host is not on the organisation's connector allowlist`;
    return null;
  }

  /** A `lookup` for node:http that refuses forbidden resolved addresses. */
  lookupFor(hostname: string): net.LookupFunction {
    const hostAllowed = this.hostAllowed(hostname);
    return (host: string, options: dns.LookupOptions, callback: LookupCallback) => {
      dns.lookup(host, { ...options, all: true }, (error, addresses) => {
        if (error) return callback(error, '', 4);
        for (const entry of addresses) {
          const refused = this.refusal(entry.address, hostAllowed);
          if (refused !== null) return callback(new OutboundRefusedError(refused), '', 4);
        }
        const first = addresses[0];
        if (first === undefined) return callback(new Error(`no address for ${host}`), '', 4);
        if (options.all === true) return (callback as unknown as AllCallback)(null, addresses);
        return callback(null, first.address, first.family);
      });
    };
  }
}

type LookupCallback = (error: Error | null, address: string, family: number) => void;
type AllCallback = (error: Error | null, addresses: dns.LookupAddress[]) => void;

/** A request the outbound policy does not allow. */
export class OutboundRefusedError extends Error {
  override readonly name = 'OutboundRefusedError';
}

const forbidden = new net.BlockList();
forbidden.addSubnet('169.254.0.0', 16, 'ipv4');
forbidden.addSubnet('fe80::', 10, 'ipv6');
forbidden.addAddress('fd00:ec2::254', 'ipv6');

// An IPv4-mapped IPv6 address (::ffff:169.254.169.254) is checked as the IPv4 address it is.
function normalise(address: string): { ip: string; family: 'ipv4' | 'ipv6' } {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped?.[1]) return { ip: mapped[1], family: 'ipv4' };
  return { ip: bare, family: net.isIP(bare) === 6 ? 'ipv6' : 'ipv4' };
}

/** Checks the entries of an allowlist; returns problems (empty when every entry is usable). */
export function allowlistProblems(entries: readonly string[]): string[] {
  const problems: string[] = [];
  for (const entry of entries) {
    const value = entry.trim().toLowerCase();
    const cidr = /^([0-9a-f:.]+)\/(\d{1,3})$/.exec(value);
    if (cidr?.[1]) {
      const family = net.isIP(cidr[1]);
      if (family === 0 || Number(cidr[2]) > (family === 6 ? 128 : 32))
        problems.push(`'${entry}' is not a CIDR range`);
    } else if (
      net.isIP(value) === 0 &&
      !/^(\*\.)?[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?)*$/.test(value)
    ) {
      problems.push(`'${entry}' is not a host name, *.suffix, IP address or CIDR range`);
    }
  }
  return problems;
}
