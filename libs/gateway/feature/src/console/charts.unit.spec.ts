import { formatMoney, formatSignedMoney } from '@pay/hosted-ui';
import { amountTicks, balanceChart, barChart, CHART_WIDTH, localInstant, tickLabel, timeTicks, zoneOffsetMs } from './charts';


describe('amountTicks', () => {
  it('covers the range and zero with round steps', () => {
    expect(amountTicks(0, 1_000_000)).toEqual([0, 200_000, 400_000, 600_000, 800_000, 1_000_000]);
    expect(amountTicks(-150, 420)).toEqual([-200, 0, 200, 400, 600]);
  });
  it('has a range when every value is the same', () => {
    expect(amountTicks(0, 0)).toEqual([0, 1]);
    expect(amountTicks(5000, 5000)[0]).toBe(0);
  });
});

describe('local time', () => {
  it('knows each zone’s offset, Morocco’s Ramadan change included', () => {
    expect(zoneOffsetMs(Date.parse('2026-06-01T12:00:00Z'), 'Africa/Algiers')).toBe(3_600_000);
    expect(zoneOffsetMs(Date.parse('2026-06-01T12:00:00Z'), 'Africa/Dakar')).toBe(0);
    // Morocco: UTC+1, UTC during Ramadan (February-March 2026).
    expect(zoneOffsetMs(Date.parse('2026-01-10T12:00:00Z'), 'Africa/Casablanca')).toBe(3_600_000);
    expect(zoneOffsetMs(Date.parse('2026-03-01T12:00:00Z'), 'Africa/Casablanca')).toBe(0);
  });
  it('finds a local midnight', () => {
    expect(new Date(localInstant(2026, 11, 3, 0, 'Africa/Algiers')).toISOString()).toBe('2026-11-02T23:00:00.000Z');
    expect(new Date(localInstant(2026, 12, 32, 0, 'Africa/Tunis')).toISOString()).toBe('2026-12-31T23:00:00.000Z');
  });
  it('ticks a month at local midnights of the zone, at most seven', () => {
    const ticks = timeTicks(Date.parse('2026-11-01T10:00:00Z'), Date.parse('2026-11-30T10:00:00Z'), 'Africa/Algiers');
    expect(ticks.length).toBeGreaterThan(2);
    expect(ticks.length).toBeLessThanOrEqual(7);
    for (const tick of ticks) {
      expect(tick.unit).toBe('day');
      expect(new Date(tick.ms).toISOString()).toMatch(/T23:00:00\.000Z$/);
    }
  });
  it('ticks a day by hours and a year by month starts', () => {
    const hours = timeTicks(Date.parse('2026-11-01T00:00:00Z'), Date.parse('2026-11-02T00:00:00Z'), 'Africa/Dakar');
    expect(hours.map((t) => new Date(t.ms).toISOString().slice(11, 16))).toEqual(['00:00', '06:00', '12:00', '18:00', '00:00']);
    const months = timeTicks(Date.parse('2025-12-15T00:00:00Z'), Date.parse('2026-11-15T00:00:00Z'), 'Africa/Algiers');
    expect(months.every((t) => t.unit === 'month' && new Date(t.ms + 3_600_000).getUTCDate() === 1)).toBe(true);
  });
  it('labels ticks in the language', () => {
    const tick = { ms: Date.parse('2026-11-02T23:00:00Z'), unit: 'day' as const };
    expect(tickLabel(tick, 'DZD', 'fr')).toBe('3 nov.');
    expect(tickLabel(tick, 'DZD', 'en')).toMatch(/3/);
    expect(tickLabel({ ms: Date.parse('2026-11-02T13:00:00Z'), unit: 'hour' }, 'DZD', 'fr')).toBe('14:00');
  });
});

describe('balanceChart', () => {
  const input = {
    id: 'balance',
    title: 'Solde <du compte>',
    description: 'De A à B',
    from: '2026-11-01T00:00:00Z',
    to: '2026-11-11T00:00:00Z',
    opening: 0,
    points: [
      { at: '2026-11-03T10:00:00Z', balance: 500_000 },
      { at: '2026-11-06T10:00:00Z', balance: 200_000 },
    ],
    currency: 'DZD' as const,
    language: 'fr' as const,
    rtl: false,
  };

  it('draws a step line from the opening balance to the end of the period, with a tooltip per movement', () => {
    const chart = balanceChart(input);
    expect(chart).toMatchObject({ id: 'balance', title: 'Solde <du compte>', width: CHART_WIDTH });
    expect(chart.markers).toHaveLength(2);
    expect(chart.markers[0]!.tooltip).toMatch(new RegExp(`nov\\. 2026.*: ${formatMoney(500_000, 'DZD', 'fr').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    expect(chart.grid.map((g) => g.label)).toEqual(expect.arrayContaining([formatMoney(0, 'DZD', 'fr'), formatMoney(500_000, 'DZD', 'fr')]));
    expect(chart.grid.find((g) => g.zero)).toBeDefined();
    expect(chart.path).toMatch(/^M112 [\d.]+( H[\d.]+ V[\d.]+){2} H704$/);
    // Higher balances are higher up (smaller y).
    expect(Number(chart.markers[0]!.cy)).toBeLessThan(Number(chart.markers[1]!.cy));
    expect(chart.timeTicks.length).toBeGreaterThan(2);
    expect(chart.timeTicks[0]!.label).toMatch(/nov\./);
  });

  it('right to left: time runs from the right, the amounts stand on the right', () => {
    const ltr = balanceChart(input);
    const rtl = balanceChart({ ...input, rtl: true, language: 'ar' });
    expect(Number(rtl.markers[0]!.cx)).toBeGreaterThan(Number(rtl.markers[1]!.cx));
    expect(Number(ltr.markers[0]!.cx)).toBeLessThan(Number(ltr.markers[1]!.cx));
    expect(rtl.grid[0]).toMatchObject({ anchor: 'start' });
    expect(rtl.grid[0]!.labelX).toBeGreaterThan(CHART_WIDTH - 112);
    expect(ltr.grid[0]).toMatchObject({ anchor: 'end', labelX: 104 });
    expect(rtl.grid.map((g) => g.label)).toContain(formatMoney(500_000, 'DZD', 'ar'));
    expect(Number(rtl.timeTicks[0]!.x)).toBeGreaterThan(Number(rtl.timeTicks[1]!.x));
  });

  it('a balance below zero: the axis goes below zero, amounts signed', () => {
    const chart = balanceChart({ ...input, opening: -150_000, points: [{ at: '2026-11-03T10:00:00Z', balance: -400_000 }] });
    expect(chart.grid[0]!.label).toBe(formatSignedMoney(-400_000, 'DZD', 'fr'));
    expect(chart.grid[0]!.label).toMatch(/^-/);
    expect(chart.grid.find((g) => g.zero)).toBeDefined();
  });

  it('a flat balance still has an axis; past the bound, no markers', () => {
    expect(balanceChart({ ...input, points: [] }).grid.length).toBeGreaterThan(1);
    const many = balanceChart({ ...input, points: Array.from({ length: 500 }, (_, i) => ({ at: new Date(Date.parse(input.from) + i * 60_000).toISOString(), balance: i })) });
    expect(many.markers).toEqual([]);
  });
});

describe('barChart', () => {
  it('one bar per month with its tooltip, heights in proportion; mirrored right to left', () => {
    const chart = barChart({ id: 'fees', title: 'Frais', description: 'Par mois', currency: 'XOF', language: 'en', rtl: false, bars: [{ label: 'Oct 2026', amount: 1000 }, { label: 'Nov 2026', amount: 2000 }, { label: '<b>', amount: 0 }] });
    const heights = chart.bars.map((b) => Number(b.height));
    expect(heights[1]).toBeCloseTo(heights[0]! * 2, 0);
    expect(heights[2]).toBe(0);
    expect(chart.bars[1]!.tooltip).toBe(`Nov 2026: ${formatMoney(2000, 'XOF', 'en')}`);
    expect(chart.bars.map((b) => b.label)).toEqual(['Oct 2026', 'Nov 2026', '<b>']);
    const rtl = barChart({ id: 'fees', title: 'Frais', description: 'Par mois', currency: 'XOF', language: 'ar', rtl: true, bars: [{ label: 'a', amount: 1 }, { label: 'b', amount: 1 }] });
    expect(Number(rtl.bars[0]!.x)).toBeGreaterThan(Number(rtl.bars[1]!.x));
  });
  it('thins out the labels of many bars', () => {
    const chart = barChart({ id: 'fees', title: 'F', description: 'D', currency: 'DZD', language: 'fr', rtl: false, bars: Array.from({ length: 36 }, (_, i) => ({ label: `m${i}`, amount: i })) });
    expect(chart.bars.filter((b) => b.label !== null).length).toBeLessThan(12);
  });
});
