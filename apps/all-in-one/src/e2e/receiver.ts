import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/**
 * A real HTTP receiver on loopback: records every request, answers with the next scripted reply
 * (default 200), optionally after a delay.
 */
export class Receiver {
  readonly received: Received[] = [];
  private readonly script: { status: number; delayMs?: number }[] = [];
  private server: Server | undefined;
  private waiters: { count: number; resolve: () => void }[] = [];
  private open = 0;
  /** The most requests this receiver held open at once. */
  maxOpen = 0;
  /** Responses sent so far. */
  answered = 0;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      this.open += 1;
      this.maxOpen = Math.max(this.maxOpen, this.open);
      response.on('close', () => (this.open -= 1));
      request.on('end', () => {
        this.received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
        this.waiters = this.waiters.filter((w) => (this.received.length >= w.count ? (w.resolve(), false) : true));
        const reply = this.script.shift() ?? { status: 200 };
        setTimeout(() => {
          this.answered += 1;
          response.writeHead(reply.status, { 'content-type': 'text/plain' }).end('ok');
        }, reply.delayMs ?? 0).unref();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hooks`;
    return this;
  }

  /** The next replies, in order. */
  reply(...replies: { status: number; delayMs?: number }[]): void {
    this.script.push(...replies);
  }

  /**
   * Resolves once `count` requests in all have arrived (or rejects after `timeoutMs`). The bound is
   * generous: CI machines are shared and slow, and a wait that succeeds returns at once.
   */
  waitFor(count: number, timeoutMs = 60_000): Promise<void> {
    if (this.received.length >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`receiver got ${this.received.length} of ${count} requests in ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  events(): { id: string; type: string; data: any }[] {
    return this.received.map((r) => JSON.parse(r.body));
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
