import { createServer } from 'node:http';
import { Pool } from 'pg';
import { Payments } from '@pay/sdk';
import { createSchema } from './db';
import { Orders } from './orders';
import { processEvent } from './processor';
import { createHandler } from './server';
import { Worker } from './worker';

export interface ReceiverOptions {
  databaseUrl: string;
  apiKey: string;
  baseUrl: string;
  webhookSecret: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  /** webhook-timestamp tolerance (default 300 s, as the SDK). */
  toleranceSeconds?: number;
  /** An event created longer ago is late: its object is retrieved (default 10 minutes). */
  lateAfterSeconds?: number;
  /** How often the worker looks for due events when not woken (default 1 s). */
  pollMs?: number;
  log?: (line: string) => void;
}

export interface RunningReceiver {
  /** http://host:port; webhooks go to `${url}/webhooks`. */
  url: string;
  orders: Orders;
  /** The receiver's database: received_events, orders, attempts. */
  pool: Pool;
  stop(): Promise<void>;
}

/** Creates the tables, listens, and starts the worker (which first resumes what a previous run left unprocessed). */
export async function startReceiver(options: ReceiverOptions): Promise<RunningReceiver> {
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const pool = new Pool({ connectionString: options.databaseUrl, max: 10 });
  pool.on('error', (error) => log(`postgres: idle connection lost: ${error.message}`));
  try {
    await createSchema(pool);
  } catch (error) {
    await pool.end();
    throw error;
  }
  // Retrieves run inside the worker's transaction: bounded, so that a slow API does not hold rows for minutes.
  const client = new Payments({ apiKey: options.apiKey, baseUrl: options.baseUrl, maxRetries: 2, timeoutMs: 10_000 });
  const orders = new Orders(pool, client);
  const lateAfterMs = (options.lateAfterSeconds ?? 600) * 1000;
  const worker = new Worker(pool, (db, event) => processEvent(db, event, { client, lateAfterMs }), log, options.pollMs);
  const server = createServer(
    createHandler({ pool, orders, webhookSecret: options.webhookSecret, toleranceSeconds: options.toleranceSeconds ?? 300, onStored: () => worker.wake(), log }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  }).catch(async (error: unknown) => {
    await pool.end(); // e.g. the port is taken
    throw error;
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const host = (options.host ?? '127.0.0.1').includes(':') ? `[${options.host}]` : (options.host ?? '127.0.0.1');
  worker.start();
  return {
    url: `http://${host}:${port}`,
    orders,
    pool,
    stop: async () => {
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeIdleConnections();
      await closed;
      await worker.stop();
      await pool.end();
    },
  };
}
