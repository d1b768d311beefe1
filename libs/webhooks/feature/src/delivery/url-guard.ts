import { promises as dns, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { DNS_LOOKUP_TIMEOUT_MS, URL_LENGTH_MAX } from '@pay/kernel';
import { describeAddress, type AddressClass } from './address-class';

export { classifyAddress, describeAddress, type AddressClass, type AddressDescription } from './address-class';

/**
 * The only loopback hosts, and only in sandbox (contract section 6), over http or https, as the URL
 * writes them: WHATWG URL reads 127.1, 2130706433 and 0x7f000001 as 127.0.0.1, so the check reads the
 * host as written, and every other spelling of a loopback address is refused.
 */
const SANDBOX_LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The host of an absolute URL as written (lowercase, without port), before URL normalises it; null when it has none. */
const writtenHost = (raw: string): string | null => /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#\\]*@)?(\[[^\]/?#\\]*\]|[^:/?#\\]*)/i.exec(raw)?.[1]?.toLowerCase() ?? null;

/** Whether a URL may reach a loopback address: in sandbox, and to one of the three hosts as written. */
const mayBeLoopback = (raw: string, sandbox: boolean): boolean => sandbox && SANDBOX_LOOPBACK_HOSTS.has(writtenHost(raw) ?? '');

/** `loopback`: whether the URL may reach a loopback address (see mayBeLoopback). */
export type EndpointUrlCheck = { ok: true; url: URL; loopback: boolean } | { ok: false; message: string };

/** A connect-time refusal, raised from the lookup so that http.request fails before any byte is sent. */
export class AddressRefusedError extends Error {
  readonly code = 'ERR_WEBHOOK_ADDRESS_REFUSED';
}

const isAllowedClass = (addressClass: AddressClass, loopback: boolean): boolean =>
  addressClass === 'public' || (loopback && addressClass === 'loopback');

/** Why a webhook may not go to `address`, or null when it may; `loopback`: whether this URL may reach a loopback address. */
export const addressRefusal = (host: string, address: string, loopback: boolean): string | null => {
  const { addressClass, range } = describeAddress(address);
  if (isAllowedClass(addressClass, loopback)) return null;
  const where = host === address ? `url host ${host} is` : `url host ${host} resolves to ${address},`;
  const sandboxHint = addressClass === 'loopback' ? ' (in sandbox, also 127.0.0.1, localhost and [::1], written so)' : '';
  return `${where} a ${addressClass} address (${range}); webhooks may only target public addresses${sandboxHint}`;
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
  // Nothing listens on port 0: a connection to it fails at every attempt.
  if (url.port === '0') return { ok: false, message: 'url must not use port 0' };
  const loopback = mayBeLoopback(raw, sandbox);
  if (url.protocol === 'https:') return { ok: true, url, loopback };
  if (url.protocol === 'http:' && loopback) return { ok: true, url, loopback };
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

const firstRefusal = (host: string, addresses: LookupAddress[], loopback: boolean): string | null =>
  addresses.map(({ address }) => addressRefusal(host, address, loopback)).find((refusal) => refusal !== null) ?? null;

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
  const refusal = firstRefusal(host, addresses, shape.loopback);
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
        // Of the host names, only localhost may resolve to loopback, and only in sandbox.
        const refusal = firstRefusal(hostname, addresses, sandbox && hostname.toLowerCase() === 'localhost');
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
