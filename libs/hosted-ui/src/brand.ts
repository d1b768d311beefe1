import { BRAND_NAME_LENGTH_MAX, type EnvReader } from '@pay/kernel';

/** The platform's name and colour on every hosted page (BRAND_NAME, BRAND_COLOR). */
export interface Brand {
  name: string;
  /** `#rrggbb`, lower case. */
  color: string;
}

export const DEFAULT_BRAND: Brand = { name: 'Pay', color: '#0b3d91' };

const HEX_COLOR = /^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

/** Reads BRAND_NAME and BRAND_COLOR; a bad value is a configuration problem reported at start. */
export function readBrand(read: EnvReader): Brand {
  const name = read.string('BRAND_NAME', DEFAULT_BRAND.name).trim();
  if (name.length === 0 || name.length > BRAND_NAME_LENGTH_MAX || /\p{Cc}/u.test(name)) {
    read.problems.push(`BRAND_NAME must be 1 to ${BRAND_NAME_LENGTH_MAX} characters without control characters`);
  }
  const color = read.string('BRAND_COLOR', DEFAULT_BRAND.color);
  if (!HEX_COLOR.test(color)) read.problems.push(`BRAND_COLOR must be a hex colour such as #0b3d91, got "${color}"`);
  return { name: name || DEFAULT_BRAND.name, color: HEX_COLOR.test(color) ? normalizeHex(color) : DEFAULT_BRAND.color };
}

const normalizeHex = (color: string): string => {
  const hex = color.slice(1).toLowerCase();
  return `#${hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex}`;
};

/** WCAG relative luminance of `#rrggbb`. */
const luminance = (hex: string): number => {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
};

export const contrastRatio = (a: string, b: string): number => {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light! + 0.05) / (dark! + 0.05);
};

/** Text and page colours the stylesheet uses with the brand colour. */
export const INK = '#1a1a1a';
export const PAGE_BACKGROUND = '#f4f5f7';
/** WCAG AA for normal text. */
const READABLE = 4.5;

/**
 * The colours derived from the brand's: text on the brand colour (white or black, whichever reads
 * better: one of them always reaches 4.5:1), and an accent for links and outlined buttons on the
 * page: the brand colour when it reads on the page background, else ink. Any BRAND_COLOR stays legible.
 */
export const brandPalette = (brand: Brand): { brand: string; onBrand: string; accent: string } => ({
  brand: brand.color,
  onBrand: contrastRatio(brand.color, '#ffffff') >= contrastRatio(brand.color, '#000000') ? '#ffffff' : '#000000',
  accent: contrastRatio(brand.color, PAGE_BACKGROUND) >= READABLE ? brand.color : INK,
});
