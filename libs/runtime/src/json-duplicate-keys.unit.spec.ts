import { firstDuplicateKey } from './json-duplicate-keys';

describe('firstDuplicateKey', () => {
  it.each([
    ['{"payment":"pay_a","amount":1,"payment":"pay_b"}', 'payment'],
    ['{"a":1,"\\u0061":2}', 'a'],
    ['{"\\u00e9":1,"é":2}', 'é'],
    ['{"outer":{"x":1,"y":{"z":[1,{"k":1,"k":2}]}}}', 'k'],
    ['[{"a":1},{"b":1,"b":2}]', 'b'],
    ['{"say \\"hi\\"":1, "say \\"hi\\"" : 2}', 'say "hi"'],
    ['{"a":{"b":1},"a":2}', 'a'],
    [' { "a" : [ ] , "a" : { } } ', 'a'],
  ])('%s repeats %j', (text, key) => {
    JSON.parse(text); // valid JSON, as the body parser hands it
    expect(firstDuplicateKey(text)).toBe(key);
  });

  it.each([
    '{"a":1,"b":{"a":1},"c":[{"a":1},{"a":2}]}',
    '{"a":"\\"a\\":1,","b":"{\\"a\\":2}"}',
    '{"a\\\\":1,"a":2}',
    '{"A":1,"a":2}',
    '{"k":["k","k"],"l":{"k":{"k":1}}}',
    '{}',
    '[]',
    '"a"',
    '{"x":{},"y":[],"z":""}',
  ])('%s repeats none', (text) => {
    JSON.parse(text);
    expect(firstDuplicateKey(text)).toBeUndefined();
  });
});
