import { promises as dns, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { DNS_LOOKUP_TIMEOUT_MS, URL_LENGTH_MAX } from '@pay/kernel';
import { describeAddress, type AddressClass } from './address-class';

export { classifyAddress, describeAddress, type AddressClass, type AddressDescription } from './address-class';

/** The only plain-http hosts, and only in sandbox (contract section 6). */
const SANDBOX_HTTP_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

export type EndpointUrlCheck = { ok: true; url: URL } | { ok: false; message: string };

/** A connect-time refusal, raised from the lookup so that http.request fails before any byte is sent. */
export class AddressRefusedError extends Error {
  readonly code = 'ERR_WEBHOOK_ADDRESS_REFUSED';
}

const isAllowedClass = (addressClass: AddressClass, sandbox: boolean): boolean =>
  addressClass === 'public' || (sandbox && addressClass === 'loopback');

/** Why a webhook may not go to `address`, or null when it may. */
export const addressRefusal = (host: string, address: string, sandbox: boolean): string | null => {
  const { addressClass, range } = describeAddress(address);
  if (isAllowedClass(addressClass, sandbox)) return null;
  const where = host === address ? `url host ${host} is` : `url host ${host} resolves to ${address},`;
  return `${where} a ${addressClass} address (${range}); webhooks may only target public addresses`;
};

/** URL.hostname keeps the brackets of an IPv6 literal; DNS and classification want them off. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** The rules that need no DNS (scheme, credentials, length); applied at registration and before every attempt. */
export const checkUrlShape = (raw: string, { sandbox }: { sandbox: boolean }): EndpointUrlCheck => {
  if (raw.length > URL_LENGTH_MAX) return { ok: false, message: `url must be at most ${URL_LENGTH_MAX} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, message: 'url is not a valid absolute URL' };
  }
  if (url.username !== '' || url.password !== '') return { ok: false, message: 'url must not contain credentials' };
  if (url.protocol === 'https:') return { ok: true, url };
  if (url.protocol === 'http:' && sandbox && SANDBOX_HTTP_HOSTS.has(url.hostname)) return { ok: true, url };
  const allowed = sandbox ? 'https://, or http:// to 127.0.0.1, localhost or [::1] in sandbox' : 'https://';
  return { ok: false, message: `url must use ${allowed}, got ${url.protocol}//${url.host}` };
};

/** Every address of `host`, bounded in time: getaddrinfo itself cannot be canceled, so the wait is. */
const lookupAll = async (host: string, family: number): Promise<LookupAddress[]> => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`DNS lookup of ${host} timed out after ${DNS_LOOKUP_TIMEOUT_MS} ms`)), DNS_LOOKUP_TIMEOUT_MS);
  });
  try {
    const addresses = await Promise.race([dns.lookup(host, { all: true, verbatim: true, family }), timeout]);
    if (addresses.length === 0) throw new Error(`url host ${host} has no address`);
    return addresses;
  } finally {
    clearTimeout(timer);
  }
};

const firstRefusal = (host: string, addresses: LookupAddress[], sandbox: boolean): string | null =>
  addresses.map(({ address }) => addressRefusal(host, address, sandbox)).find((refusal) => refusal !== null) ?? null;

/**
 * Registration check: shape, then every address the host resolves to (or the IP literal) must be
 * allowed. One forbidden address is enough to refuse: a resolver may hand out any of them.
 */
export const checkEndpointUrl = async (raw: string, { sandbox }: { sandbox: boolean }): Promise<EndpointUrlCheck> => {
  const shape = checkUrlShape(raw, { sandbox });
  if (!shape.ok) return shape;
  const host = hostOf(shape.url);
  let addresses: LookupAddress[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await lookupAll(host, 0);
    } catch (error) {
      return { ok: false, message: `url host ${host} does not resolve (${(error as Error).message})` };
    }
  }
  const refusal = firstRefusal(host, addresses, sandbox);
  return refusal ? { ok: false, message: refusal } : shape;
};

const familyNumber = (family: number | 'IPv4' | 'IPv6' | undefined): number =>
  family === 'IPv4' ? 4 : family === 'IPv6' ? 6 : (family ?? 0);

/**
 * A `lookup` for http.request: resolves at connect time and hands the socket only checked addresses,
 * so a DNS answer that changed after registration (rebinding) cannot reach a forbidden address.
 * Node skips `lookup` for IP literals: callers check those with `addressRefusal` themselves.
 */
export const guardedLookup =
  (sandbox: boolean): LookupFunction =>
  (hostname, options, callback) => {
    lookupAll(hostname, familyNumber(options.family)).then(
      (addresses) => {
        const refusal = firstRefusal(hostname, addresses, sandbox);
        // nextTick: a throw in net's callback must not become a rejection of this promise.
        process.nextTick(() => {
          if (refusal) callback(new AddressRefusedError(refusal), '');
          else if (options.all) callback(null, addresses);
          else callback(null, addresses[0]!.address, addresses[0]!.family);
        });
      },
      (error: NodeJS.ErrnoException) => process.nextTick(() => callback(error, '')),
    );
  };
