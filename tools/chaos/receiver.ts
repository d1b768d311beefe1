import { createServer, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';

interface Delivered {
  body: string;
  times: number;
}

/**
 * The integrator's webhook receiver on loopback, one path per round: verifies each request's signature
 * with the round's endpoint secret and keeps, per event id, the body it came with.
 */
export class ChaosReceiver {
  private server: Server | undefined;
  private readonly rounds = new Map<string, { verifier: Webhook | undefined; events: Map<string, Delivered>; problems: string[] }>();
  origin = '';

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const round = this.rounds.get(request.url ?? '');
        if (round) this.take(round, body, request.headers as Record<string, string>);
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    return this;
  }

  /** The URL a round's endpoint is registered with. */
  urlFor(round: number): string {
    const path = `/hooks/${round}`;
    if (!this.rounds.has(path)) this.rounds.set(path, { verifier: undefined, events: new Map(), problems: [] });
    return `${this.origin}${path}`;
  }

  /** The endpoint's signing secret, known once it is created. */
  trust(round: number, secret: string): void {
    this.rounds.get(`/hooks/${round}`)!.verifier = new Webhook(secret);
  }

  delivered(round: number): ReadonlyMap<string, Delivered> {
    return this.rounds.get(`/hooks/${round}`)?.events ?? new Map();
  }

  /** Forged or unsigned requests, and an event id that came with two different bodies. */
  problems(round: number): readonly string[] {
    return this.rounds.get(`/hooks/${round}`)?.problems ?? [];
  }

  private take(round: { verifier: Webhook | undefined; events: Map<string, Delivered>; problems: string[] }, body: string, headers: Record<string, string>): void {
    const id = headers['webhook-id'] ?? '';
    try {
      round.verifier?.verify(body, headers);
    } catch (error) {
      round.problems.push(`event ${id}: signature refused (${String(error)})`);
    }
    const known = round.events.get(id);
    if (!known) round.events.set(id, { body, times: 1 });
    else {
      known.times += 1;
      if (known.body !== body) round.problems.push(`event ${id} came twice with different bodies`);
    }
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
