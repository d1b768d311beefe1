import { readFileSync } from 'node:fs';

/**
 * Samples a process's resident memory (VmRSS in /proc/<pid>/status) on an interval and keeps the max.
 * RSS, not the V8 heap: it is what the machine pays, native buffers and code included.
 */
export class RssSampler {
  private maxKb = 0;
  private samples = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pid: number,
    private readonly intervalMs = 500,
  ) {}

  start(): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  get maxMb(): number {
    return this.maxKb / 1024;
  }

  get sampleCount(): number {
    return this.samples;
  }

  private sample(): void {
    try {
      const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${this.pid}/status`, 'utf8'));
      if (!match) return;
      this.samples++;
      this.maxKb = Math.max(this.maxKb, Number(match[1]));
    } catch {
      /* the process has exited: nothing more to sample */
    }
  }
}
