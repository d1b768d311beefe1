import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { REPO_ROOT } from './service';

/**
 * `node tools/run.js tools/bench/profile-summary.ts <file.cpuprofile> [top]`: the top entries of a V8 CPU
 * profile (`node --cpu-prof`, or the inspector's Profiler.stop): by self time (where the CPU is) and by
 * total time (what a function and everything it calls cost), then by package (node_modules/<name>, our
 * own libs/<lib>, node internals), each as a share of the samples that were not idle.
 */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const IDLE = new Set(['(idle)', '(program)', '(garbage collector)']);
const [file, topArg, callersOf] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node tools/run.js tools/bench/profile-summary.ts <file.cpuprofile> [top] [function whose callers to list]\n');
  process.exit(2);
}
const TOP = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

/** Microseconds of samples whose leaf is each node. */
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

const location = ({ url, lineNumber }: CallFrame): string => {
  if (!url) return '';
  const path = url.startsWith('file://') ? url.slice('file://'.length) : url;
  const shown = path.startsWith('/') ? relative(REPO_ROOT, path) : path;
  return `${shown}:${lineNumber + 1}`;
};
const keyOf = (frame: CallFrame): string => `${frame.functionName || '(anonymous)'} ${location(frame)}`;
const packageOf = ({ url, functionName }: CallFrame): string => {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1]!;
  const ours = /\/(libs\/[^/]+(?:\/[^/]+)?|apps\/[^/]+|tools)\//.exec(url);
  if (ours) return ours[1]!;
  return url.startsWith('node:') ? 'node:' + url.slice(5).split('/')[0] : url;
};

const self = new Map<string, number>();
/** With a third argument: the stacks (5 frames up) under which that function had its samples. */
const callers = new Map<string, number>();
const total = new Map<string, number>();
const packages = new Map<string, number>();
let busyUs = 0;
let idleUs = 0;
for (const [id, us] of selfUs) {
  const node = byId.get(id)!;
  if (IDLE.has(node.callFrame.functionName) && node.callFrame.functionName !== '(garbage collector)') {
    idleUs += us;
    continue;
  }
  busyUs += us;
  self.set(keyOf(node.callFrame), (self.get(keyOf(node.callFrame)) ?? 0) + us);
  packages.set(packageOf(node.callFrame), (packages.get(packageOf(node.callFrame)) ?? 0) + us);
  if (callersOf && node.callFrame.functionName === callersOf) {
    const stack: string[] = [];
    for (let at = parentOf.get(id); at !== undefined && stack.length < 5; at = parentOf.get(at)) stack.push(keyOf(byId.get(at)!.callFrame));
    callers.set(stack.join(' < '), (callers.get(stack.join(' < ')) ?? 0) + us);
  }
  // Total time: once per distinct function on the sample's stack (recursion counted once).
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
    const key = keyOf(byId.get(at)!.callFrame);
    if (seen.has(key)) continue;
    seen.add(key);
    total.set(key, (total.get(key) ?? 0) + us);
  }
}

const share = (us: number) => `${((100 * us) / busyUs).toFixed(1).padStart(5)} %`;
const top = (entries: Map<string, number>, n: number) =>
  [...entries]
    .filter(([key]) => !key.startsWith('(root)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([key, us]) => `  ${share(us)}  ${key}`)
    .join('\n');

process.stdout.write(
  `${file}\nbusy ${(busyUs / 1e6).toFixed(1)} s (garbage collector included), idle ${(idleUs / 1e6).toFixed(1)} s\n` +
    `\nself time, top ${TOP}\n${top(self, TOP)}\n\ntotal time, top ${TOP}\n${top(total, TOP)}\n\nself time by package\n${top(packages, TOP)}\n` +
    (callersOf ? `\ncallers of ${callersOf}\n${top(callers, TOP)}\n` : ''),
);
