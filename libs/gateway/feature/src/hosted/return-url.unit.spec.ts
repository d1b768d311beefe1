import { returnUrlWith } from './return-url';

describe("the link back to the merchant's return_url", () => {
  it('appends payment_id to the return_url exactly as stored, before its fragment: a merchant that signs its query can still check it', () => {
    expect(returnUrlWith('https://shop.example/r?x=a%20b&y=%7E&z&sig=A%2BB#frag', 'pay_123')).toBe('https://shop.example/r?x=a%20b&y=%7E&z&sig=A%2BB&payment_id=pay_123#frag');
  });

  it('starts the query when there is none, and adds no separator after one that ends it', () => {
    expect(returnUrlWith('https://shop.example/return', 'pay_1')).toBe('https://shop.example/return?payment_id=pay_1');
    expect(returnUrlWith('https://shop.example/return#top', 'pay_1')).toBe('https://shop.example/return?payment_id=pay_1#top');
    expect(returnUrlWith('https://shop.example/return?', 'pay_1')).toBe('https://shop.example/return?payment_id=pay_1');
    expect(returnUrlWith('https://shop.example/return?a=1&', 'pay_1')).toBe('https://shop.example/return?a=1&payment_id=pay_1');
    expect(returnUrlWith('https://shop.example/p?q#a?b', 'pay_1')).toBe('https://shop.example/p?q&payment_id=pay_1#a?b');
  });
});
