import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fmt } from './report';

/**
 * Where a phase's CPU went: the time each group of processes (the service, PostgreSQL, the bench's own
 * load generator and receiver, anything else on the machine) spent on a CPU, from the kernel's scheduler
 * statistics (/proc/<pid>/task/<tid>/schedstat, nanoseconds), and how long the service's main thread
 * (its event loop) was runnable but waiting for a core: on two cores shared with PostgreSQL and the
 * clients, the part of a request's latency that is the machine's, not the service's own work.
 */

/** Names the group a process belongs to, from its pid and command line; undefined: not counted. */
export type Classify = (process: { pid: number; command: string }) => string | undefined;

export interface CpuSnapshot {
  /** Whether the kernel keeps scheduler statistics (CONFIG_SCHED_INFO): without them, nothing is measured. */
  available: boolean;
  atMs: number;
  /** Nanoseconds on a CPU so far, by pid (every thread), with the pid's group. */
  processes: Map<number, { group: string; runNs: number }>;
  /** The watched process's main thread: time on a CPU, and time runnable waiting for one. */
  mainThread: { runNs: number; waitNs: number } | undefined;
  /** /proc/stat's first line: ticks idle (idle + iowait) and in all. */
  machine: { idleTicks: number; totalTicks: number };
}

/** Every process `classify` names, and the main thread of `watchedPid` (the service). */
export function cpuSnapshot(classify: Classify, watchedPid?: number): CpuSnapshot {
  const processes = new Map<number, { group: string; runNs: number }>();
  const available = existsSync('/proc/self/schedstat');
  const pids = (available ? readdirSync('/proc') : []).filter((entry) => /^\d+$/.test(entry)).map(Number);
  const ours = descendantsOf(process.pid, pids);
  for (const pid of pids) {
    // The bench's own processes only: on a shared machine, another checkout's apps, brokers and
    // PostgreSQL have the same command lines.
    if (!ours.has(pid)) continue;
    const command = readOr(`/proc/${pid}/cmdline`, '').replaceAll('\0', ' ').trim();
    const group = classify({ pid, command });
    if (group === undefined) continue;
    processes.set(pid, { group, runNs: processRunNs(pid) });
  }
  const main = watchedPid === undefined ? undefined : parseSchedstat(readOr(`/proc/${watchedPid}/task/${watchedPid}/schedstat`, ''));
  return { available, atMs: performance.now(), processes, mainThread: main, machine: parseMachineStat(readOr('/proc/stat', '')) };
}

export interface CpuDelta {
  available: boolean;
  seconds: number;
  /** Milliseconds on a CPU by group, over the interval; processes gone by its end are not counted. */
  runMs: Map<string, number>;
  mainThread: { runMs: number; waitMs: number } | undefined;
  /** Share of the machine's CPU time that was idle, 0..1. */
  idle: number;
}

export function cpuDelta(before: CpuSnapshot, after: CpuSnapshot): CpuDelta {
  const runMs = new Map<string, number>();
  for (const [pid, { group, runNs }] of after.processes) {
    // A process started during the interval counts from its start.
    const spent = runNs - (before.processes.get(pid)?.runNs ?? 0);
    runMs.set(group, (runMs.get(group) ?? 0) + spent / 1e6);
  }
  const mainThread =
    before.mainThread && after.mainThread
      ? { runMs: (after.mainThread.runNs - before.mainThread.runNs) / 1e6, waitMs: (after.mainThread.waitNs - before.mainThread.waitNs) / 1e6 }
      : undefined;
  const totalTicks = after.machine.totalTicks - before.machine.totalTicks;
  return {
    available: before.available && after.available,
    seconds: (after.atMs - before.atMs) / 1000,
    runMs,
    mainThread,
    idle: totalTicks > 0 ? (after.machine.idleTicks - before.machine.idleTicks) / totalTicks : Number.NaN,
  };
}

/** Intervals taken as one: their times by group and their seconds added, the idle share weighted by seconds. */
export function sumCpu(deltas: readonly CpuDelta[]): CpuDelta {
  const runMs = new Map<string, number>();
  for (const delta of deltas) for (const [group, ms] of delta.runMs) runMs.set(group, (runMs.get(group) ?? 0) + ms);
  const seconds = deltas.reduce((sum, delta) => sum + delta.seconds, 0);
  return {
    available: deltas.every((delta) => delta.available),
    seconds,
    runMs,
    mainThread: undefined,
    idle: deltas.reduce((sum, delta) => sum + delta.idle * delta.seconds, 0) / seconds,
  };
}

/** One log line: CPU ms per request by group, the main thread's running and waiting, and each group's share of a core. */
export function describeCpu(delta: CpuDelta, requests: number, unit = 'request'): string {
  if (!delta.available) return 'CPU: not measured (this kernel keeps no scheduler statistics: no /proc/<pid>/schedstat)';
  const groups = [...delta.runMs].sort((a, b) => b[1] - a[1]);
  const perRequest = groups.map(([group, ms]) => `${group} ${fmt(ms / requests, 2)}`).join(', ');
  const main = delta.mainThread
    ? `; the service's main thread per ${unit}: ${fmt(delta.mainThread.runMs / requests, 2)} running, ${fmt(delta.mainThread.waitMs / requests, 2)} waiting for a core ` +
      `(${fmt((100 * delta.mainThread.runMs) / 1000 / delta.seconds, 0)} % and ${fmt((100 * delta.mainThread.waitMs) / 1000 / delta.seconds, 0)} % of the time)`
    : '';
  const shares = groups.map(([group, ms]) => `${group} ${fmt((100 * ms) / 1000 / delta.seconds, 0)} %`).join(', ');
  return (
    `CPU ms per ${unit}: ${perRequest}${main}. Of one core over ${fmt(delta.seconds)} s: ${shares}; ` +
    `the machine (${cpus().length} cores) idle ${fmt(100 * delta.idle, 0)} %`
  );
}

/** The bench itself, PostgreSQL (every backend and helper), the process `servicePid`, and the rest. */
export const allInOneGroups =
  (servicePid: number): Classify =>
  ({ pid, command }) =>
    pid === servicePid ? 'service' : commonGroup(pid, command);

/** The bench, PostgreSQL and the rest (the baseline: the bench's own pg loop against PostgreSQL). */
export const machineGroups: Classify = ({ pid, command }) => commonGroup(pid, command);

/** The distributed topology: each app by name (its instances together), the Kafka broker(s) or the mock cluster, PostgreSQL, the bench. */
export const distributedGroups: Classify = ({ pid, command }) => {
  const app = /apps\/([a-z-]+)\/src\/main\.ts/.exec(command)?.[1];
  if (app) return app;
  if (command.includes('kafka-mock')) return 'Kafka mock';
  if (/ kafka\.Kafka /.test(command)) return 'Kafka';
  return commonGroup(pid, command);
};

const commonGroup = (pid: number, command: string): string | undefined => {
  if (pid === process.pid) return 'bench';
  if (command.startsWith('postgres')) return 'PostgreSQL';
  // Kernel threads have no command line: the kernel's own work shows in the idle share instead.
  return command === '' ? undefined : 'other';
};

/** Every thread of a process (a process that exited meanwhile: 0). */
function processRunNs(pid: number): number {
  let total = 0;
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0;
  }
  for (const tid of threads) total += parseSchedstat(readOr(`/proc/${pid}/task/${tid}/schedstat`, ''))?.runNs ?? 0;
  return total;
}

/** `root` and every process under it (by /proc/<pid>/stat's parent pid), among `pids`. */
export function descendantsOf(root: number, pids: readonly number[], parentOf: (pid: number) => number | undefined = parentPid): Set<number> {
  const children = new Map<number, number[]>();
  for (const pid of pids) {
    const parent = parentOf(pid);
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  const found = new Set<number>([root]);
  const stack = [root];
  while (stack.length > 0) {
    for (const child of children.get(stack.pop()!) ?? []) {
      if (found.has(child)) continue;
      found.add(child);
      stack.push(child);
    }
  }
  return found;
}

/** `/proc/<pid>/stat`'s fourth field; the command (second, in parentheses) may hold spaces and parentheses. */
function parentPid(pid: number): number | undefined {
  const text = readOr(`/proc/${pid}/stat`, '');
  const parent = Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]);
  return Number.isInteger(parent) ? parent : undefined;
}

/** `/proc/<pid>/task/<tid>/schedstat`: nanoseconds on a CPU, nanoseconds runnable waiting for one, timeslices. */
export function parseSchedstat(text: string): { runNs: number; waitNs: number } | undefined {
  const [run, wait] = text.trim().split(/\s+/).map(Number);
  return Number.isFinite(run) && Number.isFinite(wait) ? { runNs: run!, waitNs: wait! } : undefined;
}

/** `/proc/stat`'s first line: `cpu user nice system idle iowait irq softirq steal …` in ticks. */
export function parseMachineStat(text: string): { idleTicks: number; totalTicks: number } {
  const fields = (text.split('\n', 1)[0] ?? '').trim().split(/\s+/);
  if (fields[0] !== 'cpu') return { idleTicks: 0, totalTicks: 0 };
  const ticks = fields.slice(1, 9).map(Number);
  return { idleTicks: (ticks[3] ?? 0) + (ticks[4] ?? 0), totalTicks: ticks.reduce((sum, n) => sum + (Number.isFinite(n) ? n : 0), 0) };
}

function readOr(path: string, fallback: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return fallback; // the process exited, or the kernel keeps no scheduler statistics
  }
}
