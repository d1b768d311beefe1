import { negotiateMediaType } from './accept';

const csvOrJson = (accept: string | undefined) => negotiateMediaType(accept, ['application/json', 'text/csv']);

describe('negotiateMediaType', () => {
  it.each([
    [undefined, 'application/json'],
    ['', 'application/json'],
    ['*/*', 'application/json'],
    ['application/json', 'application/json'],
    ['text/csv', 'text/csv'],
    ['TEXT/CSV; charset=utf-8', 'text/csv'],
    ['text/*', 'text/csv'],
    ['text/csv;q=0.5, application/json', 'application/json'],
    ['application/json;q=0.5, text/csv', 'text/csv'],
    ['text/csv;q=0', 'application/json'],
    ['text/csv, */*;q=0.1', 'text/csv'],
    ['text/csv, */*', 'text/csv'],
    ['*/*, text/csv;q=0.9', 'application/json'],
    ['text/*;q=0.9, text/csv;q=0.1, application/json;q=0.5', 'application/json'],
    ['application/json, text/csv', 'application/json'],
    ['text/csv, application/json', 'text/csv'],
    ['text/csv;q=abc', 'text/csv'],
    ['text/html', 'application/json'],
    ['nonsense, ,;;', 'application/json'],
  ])('%j prefers %s', (accept, expected) => {
    expect(csvOrJson(accept)).toBe(expected);
  });
});
