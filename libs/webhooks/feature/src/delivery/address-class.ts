import { isIPv4, isIPv6 } from 'node:net';

/** What an IP address reaches. Webhooks may target `public` only (and `loopback` in sandbox). */
export type AddressClass = 'public' | 'loopback' | 'private' | 'link_local' | 'unique_local' | 'unspecified' | 'reserved';

export interface AddressDescription {
  addressClass: AddressClass;
  /** The special-purpose range that decided the class, for messages: 'carrier-grade NAT 100.64.0.0/10'. */
  range: string;
}

interface SpecialRange {
  cidr: string;
  addressClass: AddressClass;
  name: string;
  /** IPv6 ranges that carry an IPv4 address (mapped, NAT64, 6to4): the embedded address decides. */
  embeddedIPv4At?: number;
}

// IANA IPv4 and IPv6 special-purpose registries (RFC 6890 and successors), the ranges a webhook must not reach.
const IPV4_RANGES: SpecialRange[] = [
  { cidr: '0.0.0.0/8', addressClass: 'reserved', name: '"this network"' },
  { cidr: '0.0.0.0/32', addressClass: 'unspecified', name: 'unspecified' },
  { cidr: '10.0.0.0/8', addressClass: 'private', name: 'private network' },
  { cidr: '100.64.0.0/10', addressClass: 'reserved', name: 'carrier-grade NAT' },
  { cidr: '127.0.0.0/8', addressClass: 'loopback', name: 'loopback' },
  { cidr: '169.254.0.0/16', addressClass: 'link_local', name: 'link-local' },
  { cidr: '172.16.0.0/12', addressClass: 'private', name: 'private network' },
  { cidr: '192.0.0.0/24', addressClass: 'reserved', name: 'IETF protocol assignments' },
  { cidr: '192.0.2.0/24', addressClass: 'reserved', name: 'documentation' },
  { cidr: '192.88.99.0/24', addressClass: 'reserved', name: '6to4 relay anycast' },
  { cidr: '192.168.0.0/16', addressClass: 'private', name: 'private network' },
  { cidr: '198.18.0.0/15', addressClass: 'reserved', name: 'benchmarking' },
  { cidr: '198.51.100.0/24', addressClass: 'reserved', name: 'documentation' },
  { cidr: '203.0.113.0/24', addressClass: 'reserved', name: 'documentation' },
  { cidr: '224.0.0.0/4', addressClass: 'reserved', name: 'multicast' },
  { cidr: '240.0.0.0/4', addressClass: 'reserved', name: 'reserved for future use' },
  { cidr: '255.255.255.255/32', addressClass: 'reserved', name: 'broadcast' },
];

// Anything outside global unicast 2000::/3 is refused; the rest are special ranges inside or beside it.
const IPV6_RANGES: SpecialRange[] = [
  { cidr: '::/0', addressClass: 'reserved', name: 'not global unicast' },
  { cidr: '2000::/3', addressClass: 'public', name: 'global unicast' },
  { cidr: '::/128', addressClass: 'unspecified', name: 'unspecified' },
  { cidr: '::1/128', addressClass: 'loopback', name: 'loopback' },
  { cidr: '::ffff:0:0/96', addressClass: 'reserved', name: 'IPv4-mapped', embeddedIPv4At: 12 },
  { cidr: '64:ff9b::/96', addressClass: 'reserved', name: 'NAT64', embeddedIPv4At: 12 },
  { cidr: '2001::/23', addressClass: 'reserved', name: 'IETF protocol assignments' },
  { cidr: '2001:db8::/32', addressClass: 'reserved', name: 'documentation' },
  { cidr: '2002::/16', addressClass: 'reserved', name: '6to4', embeddedIPv4At: 2 },
  { cidr: '3fff::/20', addressClass: 'reserved', name: 'documentation' },
  { cidr: 'fc00::/7', addressClass: 'unique_local', name: 'unique-local' },
  { cidr: 'fe80::/10', addressClass: 'link_local', name: 'link-local' },
  { cidr: 'ff00::/8', addressClass: 'reserved', name: 'multicast' },
];

const parseIPv4 = (text: string): number[] => text.split('.').map(Number);

/** 16 bytes of a valid IPv6 text (checked by isIPv6 first), with `::` and a trailing dotted quad expanded. */
const parseIPv6 = (text: string): number[] => {
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = parseIPv4(dotted[1]!);
    text = text.slice(0, dotted.index) + `${((a! << 8) | b!).toString(16)}:${((c! << 8) | d!).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.flatMap((group) => {
    const value = parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
};

interface ParsedRange extends SpecialRange {
  bytes: number[];
  bits: number;
}

const parseRanges = (ranges: SpecialRange[], parse: (text: string) => number[]): ParsedRange[] =>
  ranges.map((range) => {
    const [network, bits] = range.cidr.split('/');
    return { ...range, bytes: parse(network!), bits: Number(bits) };
  });

const PARSED_IPV4 = parseRanges(IPV4_RANGES, parseIPv4);
const PARSED_IPV6 = parseRanges(IPV6_RANGES, parseIPv6);

const inRange = (bytes: number[], range: ParsedRange): boolean => {
  for (let bit = 0; bit < range.bits; bit++) {
    const mask = 0x80 >> bit % 8;
    const index = Math.floor(bit / 8);
    if ((bytes[index]! & mask) !== (range.bytes[index]! & mask)) return false;
  }
  return true;
};

/** The most specific range holding the address decides (longest prefix match). */
const longestMatch = (bytes: number[], ranges: ParsedRange[]): ParsedRange | undefined =>
  ranges.filter((range) => inRange(bytes, range)).sort((a, b) => b.bits - a.bits)[0];

const describeIPv4 = (bytes: number[]): AddressDescription => {
  const range = longestMatch(bytes, PARSED_IPV4);
  return range ? { addressClass: range.addressClass, range: `${range.name} ${range.cidr}` } : { addressClass: 'public', range: 'public' };
};

const describeIPv6 = (bytes: number[]): AddressDescription => {
  const range = longestMatch(bytes, PARSED_IPV6)!; // ::/0 matches every address
  if (range.embeddedIPv4At !== undefined) {
    const embedded = bytes.slice(range.embeddedIPv4At, range.embeddedIPv4At + 4);
    const inner = describeIPv4(embedded);
    return { addressClass: inner.addressClass, range: `${range.name} ${embedded.join('.')}: ${inner.range}` };
  }
  return { addressClass: range.addressClass, range: `${range.name} ${range.cidr}` };
};

/** Class and range of an IP address text; anything that is not an IP address is `reserved` (never reachable). */
export const describeAddress = (ip: string): AddressDescription => {
  const withoutZone = ip.replace(/%.*$/, ''); // fe80::1%eth0: the zone names an interface, not an address
  if (isIPv4(withoutZone)) return describeIPv4(parseIPv4(withoutZone));
  if (isIPv6(withoutZone)) return describeIPv6(parseIPv6(withoutZone));
  return { addressClass: 'reserved', range: 'not an IP address' };
};

export const classifyAddress = (ip: string): AddressClass => describeAddress(ip).addressClass;
