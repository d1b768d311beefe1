import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL that a test controls, to fail the database at an exact point:
 * `stop` is PostgreSQL stopped (connections cut, new ones refused), `freeze` PostgreSQL frozen
 * (connections open, nothing answered), `swallowReplies` a connection lost after PostgreSQL received
 * (and ran) what was sent but before its answer came back, `delayConnects` a server slow to accept.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly clients = new Set<Socket>();
  private swallowing = false;
  private frozen = false;
  private connectDelayMs = 0;
  /** Client connections accepted so far. */
  accepted = 0;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  /** A proxy for the PostgreSQL of `url`; `urlThrough` is `url` reached through it. */
  static forUrl(url: string): TcpProxy {
    const target = new URL(url);
    return new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  }

  urlThrough(url: string): string {
    const through = new URL(url);
    through.host = `127.0.0.1:${this.port}`;
    return through.toString();
  }

  /** Client connections still open. */
  get open(): number {
    return this.clients.size;
  }

  async start(): Promise<void> {
    this.swallowing = false;
    this.frozen = false;
    this.server = createServer((client) => {
      this.accepted++;
      this.sockets.add(client);
      this.clients.add(client);
      client.on('close', () => (this.sockets.delete(client), this.clients.delete(client)));
      client.on('error', () => client.destroy());
      client.pause();
      if (this.frozen) return; // accepted, never answered
      const pipe = () => {
        if (client.destroyed) return;
        const upstream = connect(this.target.port, this.target.host);
        this.sockets.add(upstream);
        upstream.on('close', () => (this.sockets.delete(upstream), client.destroy()));
        upstream.on('error', () => upstream.destroy());
        client.on('close', () => upstream.destroy());
        client.pipe(upstream);
        upstream.on('data', (chunk: Buffer) => {
          if (!this.swallowing) client.write(chunk);
        });
        client.resume();
      };
      if (this.connectDelayMs > 0) setTimeout(pipe, this.connectDelayMs);
      else pipe();
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    const address = this.server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
  }

  /** Every connection cut, new ones refused until `start`. */
  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => (this.server ? this.server.close(resolve) : resolve(undefined)));
    this.server = undefined;
  }

  /** Every connection kept open and nothing passed either way; new ones accepted and never answered, until `thaw`. */
  freeze(): void {
    this.frozen = true;
    for (const socket of this.sockets) {
      socket.pause();
      socket.unpipe();
    }
  }

  /** Back from `freeze` (or `stop`): the frozen connections cut, new ones served. */
  async thaw(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** From now on PostgreSQL's answers are dropped (what the clients send still reaches it). */
  swallowReplies(): void {
    this.swallowing = true;
  }

  /** New connections reach PostgreSQL only after `ms`. */
  delayConnects(ms: number): void {
    this.connectDelayMs = ms;
  }
}
