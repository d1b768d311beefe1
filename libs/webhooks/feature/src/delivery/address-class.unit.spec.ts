import { classifyAddress, describeAddress, type AddressClass } from './address-class';

describe('classifyAddress', () => {
  const table: [string, AddressClass][] = [
    // IPv4
    ['93.184.216.34', 'public'],
    ['8.8.8.8', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link_local'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'reserved'],
    ['100.64.0.1', 'reserved'],
    ['100.127.255.255', 'reserved'],
    ['100.128.0.1', 'public'],
    ['224.0.0.1', 'reserved'],
    ['239.255.255.250', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    // IPv6
    ['2606:2800:220:1:248:1893:25c8:1946', 'public'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['febf::1', 'link_local'],
    ['fc00::1', 'unique_local'],
    ['fd00::1', 'unique_local'],
    ['ff02::1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['::2', 'reserved'],
    ['4000::1', 'reserved'],
    // IPv4 inside IPv6: the embedded address decides
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:a00:1', 'private'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:169.254.169.254', 'link_local'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::ffff:100.64.0.1', 'reserved'],
    ['::ffff:93.184.216.34', 'public'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['2002:a00:1::1', 'private'],
    ['2002:808:808::1', 'public'],
    // not an address at all
    ['example.com', 'reserved'],
    ['', 'reserved'],
  ];

  it.each(table)('%s is %s', (ip, expected) => {
    expect(classifyAddress(ip)).toBe(expected);
  });

  it('names the range that decided, for refusal messages', () => {
    expect(describeAddress('100.64.0.1')).toEqual({ addressClass: 'reserved', range: 'carrier-grade NAT 100.64.0.0/10' });
    expect(describeAddress('::ffff:10.0.0.1')).toEqual({ addressClass: 'private', range: 'IPv4-mapped 10.0.0.1: private network 10.0.0.0/8' });
  });
});
