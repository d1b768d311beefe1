/** Bounds the work one header costs: a longer list is read up to this many media ranges. */
const MEDIA_RANGES_MAX = 32;

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
  order: number;
}

/** The media ranges of an Accept header (RFC 9110, 12.5.1), with their weights; an unreadable one is skipped. */
function mediaRanges(accept: string): MediaRange[] {
  return accept
    .split(',')
    .slice(0, MEDIA_RANGES_MAX)
    .flatMap((part, order): MediaRange[] => {
      const [range = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
      const match = /^([a-z0-9!#$%&'*+.^_`|~-]+)\/([a-z0-9!#$%&'*+.^_`|~-]+)$/.exec(range);
      if (!match) return [];
      const weight = params.find((p) => /^q\s*=/.test(p))?.replace(/^q\s*=\s*/, '');
      const q = weight === undefined ? 1 : /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(weight) ? Number(weight) : 1;
      return [{ type: match[1]!, subtype: match[2]!, q, order }];
    });
}

/**
 * How a media type fares under an Accept header: the weight of the most specific range that matches it
 * (`text/csv` over `text/*` over `*\/*`), that range's specificity and its place in the header; weight 0
 * when none matches.
 */
function preference(ranges: MediaRange[], mediaType: string): { q: number; specificity: number; order: number } {
  const [type, subtype] = mediaType.split('/');
  let best = { q: 0, specificity: -1, order: Infinity };
  for (const range of ranges) {
    const specificity = range.type === type && range.subtype === subtype ? 2 : range.type === type && range.subtype === '*' ? 1 : range.type === '*' && range.subtype === '*' ? 0 : -1;
    if (specificity > best.specificity) best = { q: range.q, specificity, order: range.order };
  }
  return best;
}

/**
 * Which of `offered` (the default first) the Accept header prefers: the highest weight; on a tie the
 * more specific range, then the one listed first; the default when the header names none of them.
 */
export function negotiateMediaType<T extends string>(accept: string | undefined, offered: readonly [T, ...T[]]): T {
  if (accept === undefined || accept.trim() === '') return offered[0];
  const ranges = mediaRanges(accept);
  let chosen = offered[0];
  let best = preference(ranges, chosen);
  for (const candidate of offered.slice(1)) {
    const p = preference(ranges, candidate);
    if (p.q === 0) continue;
    if (best.q === 0 || p.q > best.q || (p.q === best.q && (p.specificity > best.specificity || (p.specificity === best.specificity && p.order < best.order)))) {
      chosen = candidate;
      best = p;
    }
  }
  return chosen;
}
