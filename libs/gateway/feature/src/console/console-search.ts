import { Injectable } from '@nestjs/common';
import type { SearchResult } from './console-views';

/** The search's reads, over the bus (never another app's database): works in both topologies. */
@Injectable()
export class ConsoleSearch {
  /** Payments, cash payments and supplier payments whose order, invoice or payment reference is `reference`, across integrators. */
  async byReference(_reference: string): Promise<{ results: SearchResult[]; truncated: boolean }> {
    return { results: [], truncated: false };
  }
}
