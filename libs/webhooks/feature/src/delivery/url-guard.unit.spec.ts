import { promises as dns, type LookupAddress } from 'node:dns';
import { DNS_LOOKUP_TIMEOUT_MS } from '@pay/kernel';
import { AddressRefusedError, checkEndpointUrl, guardedLookup } from './url-guard';

// Registration checks only: IP literals need no DNS, and names are answered by a stubbed resolver
// (or /etc/hosts for localhost). No traffic goes to any address.
const stubDns = (answer: () => Promise<LookupAddress[]>) => jest.spyOn(dns, 'lookup').mockImplementation(answer as any);

afterEach(() => {
  jest.restoreAllMocks();
  jest.useRealTimers();
});

const refusal = async (url: string, sandbox: boolean): Promise<string> => {
  const check = await checkEndpointUrl(url, { sandbox });
  if (check.ok) throw new Error(`${url} was accepted`);
  return check.message;
};

describe('checkEndpointUrl: url must be https:// and must not resolve to a loopback, private or link-local address', () => {
  it('accepts https to a public IP literal', async () => {
    const check = await checkEndpointUrl('https://93.184.216.34/hook', { sandbox: false });
    expect(check).toEqual({ ok: true, url: new URL('https://93.184.216.34/hook'), loopback: false });
  });

  it('refuses http outside sandbox', async () => {
    expect(await refusal('http://93.184.216.34/hook', false)).toMatch(/must use https:\/\//);
  });

  it.each([
    ['https://127.0.0.1/hook', 'loopback'],
    ['https://10.0.0.1/hook', 'private'],
    ['https://172.16.5.4/hook', 'private'],
    ['https://192.168.1.1/hook', 'private'],
    ['https://169.254.169.254/latest/meta-data', 'link_local'],
    ['https://[fe80::1]/hook', 'link_local'],
    ['https://[fd00::1]/hook', 'unique_local'],
    ['https://[::ffff:10.0.0.1]/hook', 'private'],
    ['https://0.0.0.0/hook', 'unspecified'],
    ['https://[::]/hook', 'unspecified'],
    ['https://100.64.0.1/hook', 'reserved'],
    ['https://224.0.0.1/hook', 'reserved'],
    ['https://255.255.255.255/hook', 'reserved'],
    ['https://[::1]/hook', 'loopback'],
    ['https://0x7f000001/hook', 'loopback'], // WHATWG URL reads this as 127.0.0.1
  ])('refuses %s as %s', async (url, addressClass) => {
    expect(await refusal(url, false)).toContain(`a ${addressClass} address`);
  });

  it('refuses localhost outside sandbox, as loopback', async () => {
    expect(await refusal('https://localhost:8443/hook', false)).toContain('a loopback address');
  });

  it('in sandbox accepts http://127.0.0.1, http://localhost and http://[::1], with a port', async () => {
    for (const url of ['http://127.0.0.1:4000/hook', 'http://localhost:4000/hook', 'http://[::1]:4000/hook', 'http://localhost/']) {
      expect(await checkEndpointUrl(url, { sandbox: true })).toMatchObject({ ok: true });
    }
  });

  it('in sandbox accepts https to loopback too', async () => {
    expect(await checkEndpointUrl('https://127.0.0.1:4443/hook', { sandbox: true })).toMatchObject({ ok: true });
    expect(await checkEndpointUrl('https://localhost:4443/hook', { sandbox: true })).toMatchObject({ ok: true });
  });

  it.each(['https://127.0.0.2/', 'https://[::ffff:127.0.0.1]/', 'https://2130706433/', 'https://0x7f000001/', 'https://127.1/', 'http://127.1/', 'http://0x7f000001/', 'https://[0:0:0:0:0:0:0:1]/'])(
    'in sandbox refuses %s: loopback, but not one of the three hosts as the contract writes them',
    async (url) => {
      expect(await refusal(url, true)).toMatch(/loopback|must use https:\/\//);
    },
  );

  it('in sandbox refuses a name other than localhost that resolves to loopback', async () => {
    stubDns(async () => [{ address: '127.0.0.1', family: 4 }]);
    expect(await refusal('https://loopback.example.com/hook', true)).toContain('a loopback address');
  });

  it('in sandbox still refuses private addresses, and http to any other host', async () => {
    expect(await refusal('https://10.0.0.1/hook', true)).toContain('a private address');
    expect(await refusal('http://10.0.0.1/hook', true)).toMatch(/must use https:\/\//);
    expect(await refusal('http://127.0.0.2/hook', true)).toMatch(/must use https:\/\//);
    expect(await refusal('http://93.184.216.34/hook', true)).toMatch(/must use https:\/\//);
  });

  it.each([
    ['https://1.1.1.1:0/', false],
    ['https://1.1.1.1:00/', false],
    ['http://127.0.0.1:0/x', true],
    ['https://localhost:0/', true],
  ])('refuses port 0 (%s, sandbox %s): no connection can be made to it', async (url, sandbox) => {
    expect(await refusal(url, sandbox)).toContain('port 0');
  });

  it('refuses credentials in the url', async () => {
    expect(await refusal('https://user:pass@93.184.216.34/hook', false)).toBe('url must not contain credentials');
    expect(await refusal('https://user@93.184.216.34/hook', false)).toBe('url must not contain credentials');
  });

  it('refuses other schemes, malformed urls and urls over 2048 characters', async () => {
    expect(await refusal('ftp://93.184.216.34/hook', false)).toMatch(/must use https:\/\//);
    expect(await refusal('file:///etc/passwd', true)).toMatch(/must use https:\/\//);
    expect(await refusal('not a url', false)).toBe('url is not a valid absolute URL');
    expect(await refusal(`https://93.184.216.34/${'a'.repeat(2048)}`, false)).toBe('url must be at most 2048 characters');
  });

  it('refuses a name when any of its addresses is forbidden', async () => {
    stubDns(async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.1.2.3', family: 4 },
    ]);
    expect(await refusal('https://hooks.example.com/hook', false)).toBe(
      'url host hooks.example.com resolves to 10.1.2.3, a private address (private network 10.0.0.0/8); webhooks may only target public addresses',
    );
  });

  it('accepts a name whose addresses are all public', async () => {
    const lookup = stubDns(async () => [{ address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 }]);
    expect(await checkEndpointUrl('https://hooks.example.com/hook', { sandbox: false })).toMatchObject({ ok: true });
    expect(lookup).toHaveBeenCalledWith('hooks.example.com', expect.objectContaining({ all: true, verbatim: true }));
  });

  it('refuses an unresolvable host', async () => {
    stubDns(async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' });
    });
    expect(await refusal('https://nowhere.invalid/hook', false)).toMatch(/^url host nowhere.invalid does not resolve .*ENOTFOUND/);
    stubDns(async () => []);
    expect(await refusal('https://nowhere.invalid/hook', false)).toMatch(/does not resolve/);
  });

  it('gives up on a DNS lookup after 5 s', async () => {
    jest.useFakeTimers();
    stubDns(() => new Promise(() => undefined));
    const check = checkEndpointUrl('https://slow.example.com/hook', { sandbox: false });
    await jest.advanceTimersByTimeAsync(DNS_LOOKUP_TIMEOUT_MS);
    expect(await check).toEqual({ ok: false, message: expect.stringMatching(/timed out after 5000 ms/) });
  });
});

describe('guardedLookup: the connection goes only to a checked address', () => {
  const lookup = (sandbox: boolean, all: boolean, hostname = 'hooks.example.com') =>
    new Promise<{ error: Error | null; address: unknown; family?: number }>((resolve) =>
      guardedLookup(sandbox)(hostname, { all }, (error, address, family) => resolve({ error, address, family })),
    );

  it('refuses at connect time a name that now resolves to a forbidden address', async () => {
    stubDns(async () => [{ address: '169.254.169.254', family: 4 }]);
    const { error } = await lookup(false, false);
    expect(error).toBeInstanceOf(AddressRefusedError);
    expect(error!.message).toContain('a link_local address');
  });

  it('hands over the checked addresses, one or all as asked', async () => {
    const addresses = [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
    ];
    stubDns(async () => addresses);
    expect(await lookup(false, false)).toEqual({ error: null, address: '93.184.216.34', family: 4 });
    expect(await lookup(false, true)).toEqual({ error: null, address: addresses, family: undefined });
  });

  it('allows loopback in sandbox only, and only for localhost', async () => {
    stubDns(async () => [{ address: '127.0.0.1', family: 4 }]);
    expect((await lookup(true, false, 'localhost')).error).toBeNull();
    expect((await lookup(false, false, 'localhost')).error).toBeInstanceOf(AddressRefusedError);
    expect((await lookup(true, false)).error).toBeInstanceOf(AddressRefusedError);
  });

  it('passes a DNS failure through', async () => {
    stubDns(async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND hooks.example.com'), { code: 'ENOTFOUND' });
    });
    expect((await lookup(false, false)).error).toMatchObject({ code: 'ENOTFOUND' });
  });
});
