/**
 * The merchant's return_url (https, validated at create) with `payment_id=<id>` appended to its query,
 * before any fragment. Every other byte stays as stored: re-serialising the query (URLSearchParams
 * turns `%20` into `+` and `z` into `z=`) would break a merchant that signs its return query.
 */
export const returnUrlWith = (returnUrl: string, paymentId: string): string => {
  const hash = returnUrl.indexOf('#');
  const base = hash < 0 ? returnUrl : returnUrl.slice(0, hash);
  const fragment = hash < 0 ? '' : returnUrl.slice(hash);
  const separator = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${separator}payment_id=${encodeURIComponent(paymentId)}${fragment}`;
};
