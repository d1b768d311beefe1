import http, { type Agent, type AgentOptions } from 'node:http';
import https from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import { WEBHOOK_AGENT_ORIGINS_MAX, WEBHOOK_KEEP_ALIVE_FREE_SOCKETS_MAX, WEBHOOK_KEEP_ALIVE_IDLE_MS } from '@pay/kernel';

/**
 * Keep-alive HTTP agents, one per origin (scheme, host, port) and sandbox mode, so that the attempts to
 * an endpoint reuse their connections instead of opening one each. Bounded: at most WEBHOOK_AGENT_ORIGINS_MAX agents
 * (the least recently used is dropped: its idle sockets are closed, its requests in flight finish), at
 * most WEBHOOK_KEEP_ALIVE_FREE_SOCKETS_MAX idle sockets kept per origin, each for at most WEBHOOK_KEEP_ALIVE_IDLE_MS.
 *
 * Every new connection still goes through the guarded lookup (the address is checked at connect time);
 * a reused socket is one whose address was checked when it connected.
 */

type AgentClass = typeof http.Agent;

/**
 * Keeps an idle socket for WEBHOOK_KEEP_ALIVE_IDLE_MS at most and for half the receiver's announced keep-alive timeout:
 * closing before the receiver does avoids sending on a socket it is closing (a reset, a failed attempt).
 */
const keepAliveAgent = (Base: AgentClass, options: AgentOptions): Agent => {
  class KeepAliveAgent extends Base {
    override keepSocketAlive(socket: Socket): boolean {
      const hint = (socket as Socket & { _httpMessage?: { res?: http.IncomingMessage } })._httpMessage?.res?.headers['keep-alive'];
      const announcedS = typeof hint === 'string' ? Number(/^timeout=(\d+)/.exec(hint)?.[1]) : Number.NaN;
      const idleMs = Number.isFinite(announcedS) ? Math.min(WEBHOOK_KEEP_ALIVE_IDLE_MS, (announcedS * 1000) / 2) : WEBHOOK_KEEP_ALIVE_IDLE_MS;
      if (idleMs < 100) return false;
      socket.setKeepAlive(true, idleMs);
      socket.setTimeout(idleMs);
      socket.unref();
      return true;
    }
  }
  return new KeepAliveAgent(options);
};

export class OriginAgents {
  /** In least recently used order (a Map iterates in insertion order; a use re-inserts). */
  private readonly agents = new Map<string, Agent>();

  constructor(private readonly lookup: (sandbox: boolean) => LookupFunction) {}

  agentFor(url: URL, sandbox: boolean): Agent {
    const key = `${sandbox ? 's' : 'p'} ${url.protocol}//${url.host}`;
    let agent = this.agents.get(key);
    if (agent) {
      this.agents.delete(key);
    } else {
      const options: AgentOptions & { lookup: LookupFunction } = {
        keepAlive: true,
        maxFreeSockets: WEBHOOK_KEEP_ALIVE_FREE_SOCKETS_MAX,
        scheduling: 'lifo', // the most recently used socket: the least likely to have been closed meanwhile
        lookup: this.lookup(sandbox),
      };
      agent = keepAliveAgent(url.protocol === 'https:' ? https.Agent : http.Agent, options);
      while (this.agents.size >= WEBHOOK_AGENT_ORIGINS_MAX) this.evictOldest();
    }
    this.agents.set(key, agent);
    return agent;
  }

  /** Closes every idle socket; requests in flight finish on theirs. */
  close(): void {
    for (const key of [...this.agents.keys()]) this.evict(key);
  }

  private evictOldest(): void {
    const oldest = this.agents.keys().next();
    if (!oldest.done) this.evict(oldest.value);
  }

  private evict(key: string): void {
    const agent = this.agents.get(key);
    this.agents.delete(key);
    if (!agent) return;
    for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
  }
}
