import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const REPO_ROOT = join(__dirname, '..', '..', '..');

/**
 * Runs in a Node process of its own: the patch works on Node's module cache, which jest's module
 * registry replaces. Counts the module loader's calls while kafkajs builds 100 fetch and 100 produce
 * requests, before and after the patch, and checks that the patched tables still build the same requests.
 */
const SCRIPT = `
const Module = require('node:module');
const { requests } = require('kafkajs/src/protocol/requests');
let loads = 0;
const load = Module._load;
Module._load = function (...args) { loads += 1; return load.apply(this, args); };
const build = () => {
  const built = [];
  for (let i = 0; i < 100; i += 1) {
    const fetch = requests.Fetch.protocol({ version: 11 })({ maxWaitTime: 100, minBytes: 1, maxBytes: 1024, topics: [] });
    const produce = requests.Produce.protocol({ version: 7 })({ acks: -1, timeout: 1000, topicData: [] });
    built.push([fetch.request.apiName, fetch.request.apiVersion, typeof fetch.response.parse, produce.request.apiName, produce.request.apiVersion, typeof produce.response.parse].join(' '));
  }
  return [...new Set(built)];
};
const shapesBefore = build();
const before = loads;
require(${JSON.stringify(join(__dirname, 'kafkajs-request-requires'))}).memoizeKafkajsRequestRequires();
build();
loads = 0;
const shapesAfter = build();
process.stdout.write(JSON.stringify({ before, after: loads, shapesBefore, shapesAfter }));
`;

describe('memoizeKafkajsRequestRequires', () => {
  it('builds fetch and produce requests without the module loader once each version was loaded', () => {
    const output = execFileSync(process.execPath, ['-r', join(REPO_ROOT, 'tools', 'register.js'), '-e', SCRIPT], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
    const { before, after, shapesBefore, shapesAfter } = JSON.parse(output) as { before: number; after: number; shapesBefore: string[]; shapesAfter: string[] };
    // Unpatched, each request costs two requires at least (its version's request and response modules).
    expect(before).toBeGreaterThanOrEqual(400);
    expect(after).toBe(0);
    expect(shapesBefore).toEqual(['Fetch 11 function Produce 7 function']);
    expect(shapesAfter).toEqual(shapesBefore);
  });
});
