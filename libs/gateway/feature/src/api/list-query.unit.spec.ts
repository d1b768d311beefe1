import { isoTime, parseListQuery } from './list-query';

const bound = (value: string, rounding: 'up' | 'down') => isoTime({ t: value }, 't', rounding);

describe('time bounds below the millisecond (stored times are whole milliseconds)', () => {
  it.each([
    ['2026-12-06T14:00:14.3189Z', '2026-12-06T14:00:14.319Z'],
    ['2026-12-06T14:00:14.318000001Z', '2026-12-06T14:00:14.319Z'],
    ['2026-12-06T14:00:14.9999Z', '2026-12-06T14:00:15.000Z'],
    ['2026-12-06T15:00:14.3181+01:00', '2026-12-06T14:00:14.319Z'],
  ])('rounded up, %s is %s', (value, expected) => {
    expect(bound(value, 'up')).toBe(expected);
  });

  it.each([
    ['2026-12-06T14:00:14.318Z', '2026-12-06T14:00:14.318Z'],
    ['2026-12-06T14:00:14.3180000Z', '2026-12-06T14:00:14.318Z'],
    ['2026-12-06T14:00:14Z', '2026-12-06T14:00:14.000Z'],
    ['2026-12-06T14:00Z', '2026-12-06T14:00:00.000Z'],
  ])('a whole millisecond is itself either way: %s', (value, expected) => {
    expect(bound(value, 'up')).toBe(expected);
    expect(bound(value, 'down')).toBe(expected);
  });

  it('rounded down (an inclusive upper bound: created_at <= it), the digits below the millisecond are dropped', () => {
    expect(bound('2026-12-06T14:00:14.3189Z', 'down')).toBe('2026-12-06T14:00:14.318Z');
  });

  it('created_gte and created_lt round up: a time at …14.318Z is before both bounds of …14.3189Z', () => {
    const page = parseListQuery({ created_gte: '2026-12-06T14:00:14.3189Z', created_lt: '2026-12-06T14:00:14.3189Z' }, [], { createdRange: true });
    expect(page).toMatchObject({ createdGte: '2026-12-06T14:00:14.319Z', createdLt: '2026-12-06T14:00:14.319Z' });
  });
});
