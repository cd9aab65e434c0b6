import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { parseCidr } from './strategy-definition.js';

/** A set of CIDR ranges (IPv4 and IPv6) that answers "is this address inside?". */
export class AddressAllowlist {
  private readonly list = new BlockList();
  readonly empty: boolean;

  constructor(cidrs: readonly string[]) {
    for (const cidr of cidrs) {
      const parsed = parseCidr(cidr);
      if (parsed) this.list.addSubnet(parsed.address, parsed.prefix, parsed.family);
    }
    this.empty = cidrs.length === 0;
  }

  /** True when `address` is in one of the ranges (IPv4-mapped IPv6 addresses count as IPv4). */
  includes(address: string): boolean {
    const plain = address.startsWith('::ffff:') && isIPv4(address.slice(7)) ? address.slice(7) : address;
    if (isIPv4(plain)) return this.list.check(plain, 'ipv4');
    return isIPv6(plain) && this.list.check(plain, 'ipv6');
  }
}
