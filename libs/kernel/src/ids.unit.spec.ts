import { ID_RANDOM_LENGTH } from './limits';
import { hasPrefix, newId, randomBase62 } from './ids';

describe('ids', () => {
  it('newId: the kind prefix and ID_RANDOM_LENGTH base62 characters, never twice across many pool refills', () => {
    const ids = Array.from({ length: 20_000 }, () => newId('payment'));
    for (const id of ids) expect(id).toMatch(new RegExp(`^pay_[0-9A-Za-z]{${ID_RANDOM_LENGTH}}$`));
    expect(new Set(ids).size).toBe(ids.length);
    expect(hasPrefix(ids[0], 'payment')).toBe(true);
  });

  it('randomBase62: every character about equally likely (each within 15 % of its share over 620,000 draws)', () => {
    const counts = new Map<string, number>();
    for (const char of randomBase62(620_000)) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    for (const count of counts.values()) expect(Math.abs(count - 10_000)).toBeLessThan(1_500);
  });
});
