import { EnvReader } from '@pay/kernel';
import { brandPalette, contrastRatio, DEFAULT_BRAND, PAGE_BACKGROUND, readBrand } from './brand';

describe('brand settings', () => {
  it('defaults, and reads a name and a hex colour (3 or 6 digits)', () => {
    expect(readBrand(new EnvReader({}))).toEqual(DEFAULT_BRAND);
    const read = new EnvReader({ BRAND_NAME: '  Dinar Pay ', BRAND_COLOR: '#0A7' });
    expect(readBrand(read)).toEqual({ name: 'Dinar Pay', color: '#00aa77' });
    expect(read.problems).toEqual([]);
  });

  it('a bad colour or name is a configuration problem, named', () => {
    for (const color of ['red', '#12345', '0b3d91', '#0b3d91;}body{x:y', 'url(x)']) {
      const read = new EnvReader({ BRAND_COLOR: color });
      expect(readBrand(read).color).toBe(DEFAULT_BRAND.color);
      expect(read.problems).toEqual([expect.stringContaining('BRAND_COLOR must be a hex colour')]);
    }
    for (const name of ['x'.repeat(41), 'a\u0007b', '   ']) {
      const read = new EnvReader({ BRAND_NAME: name });
      readBrand(read);
      expect(read.problems).toEqual([expect.stringContaining('BRAND_NAME')]);
    }
  });

  it('text on the brand colour, and links, stay readable whatever the colour (WCAG AA, 4.5:1)', () => {
    for (const color of ['#0b3d91', '#ffcc00', '#ffffff', '#000000', '#777777', '#e60012', '#00a86b', '#959595']) {
      const palette = brandPalette({ name: 'x', color });
      expect(contrastRatio(palette.brand, palette.onBrand)).toBeGreaterThanOrEqual(4.5);
      expect(contrastRatio(palette.accent, PAGE_BACKGROUND)).toBeGreaterThanOrEqual(4.5);
    }
  });
});
