/**
 * Shares of expensive work (AAS Query Language queries, search, serializations, imports, AASX packages): how many
 * such requests may run at once for one caller, for one tenant, and in all. The total leaves a reserve of the
 * database pool to cheap requests (reads by id, lists, writes), so that no caller or tenant, with or without bad
 * intent, can take the connections everyone else needs. A request that finds no free share is refused at once (429
 * with Retry-After), not queued: a queue would hold its connection and its memory as long as the work it waits for.
 */

export interface WorkLimits {
  /** Expensive requests one caller (a principal, or an anonymous client address) may run at once. */
  perCaller: number;
  /** Expensive requests on one tenant at once, all callers together. */
  perTenant: number;
  /** Expensive requests at once in this process: the pool minus its reserve for cheap requests. */
  total: number;
}

/** A share taken: given back once, when the work ends (a second call does nothing). */
export interface WorkShare {
  release(): void;
}

/** Why no share was free: which limit was reached, for the refusal's text. */
export type WorkRefusal = 'caller' | 'tenant' | 'total';

export class WorkShares {
  private readonly callers = new Map<string, number>();
  private readonly tenants = new Map<string, number>();
  private running = 0;

  constructor(readonly limits: WorkLimits) {}

  /** A share for `caller` on `tenant`, or which limit refuses it. */
  enter(caller: string, tenant: string): WorkShare | WorkRefusal {
    if ((this.callers.get(caller) ?? 0) >= this.limits.perCaller) return 'caller';
    if ((this.tenants.get(tenant) ?? 0) >= this.limits.perTenant) return 'tenant';
    if (this.running >= this.limits.total) return 'total';
    add(this.callers, caller, 1);
    add(this.tenants, tenant, 1);
    this.running++;
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        add(this.callers, caller, -1);
        add(this.tenants, tenant, -1);
        this.running--;
      },
    };
  }

  /** Expensive requests running now (for tests and the bench). */
  get active(): number {
    return this.running;
  }
}

function add(counts: Map<string, number>, key: string, delta: number): void {
  const next = (counts.get(key) ?? 0) + delta;
  if (next > 0) counts.set(key, next);
  else counts.delete(key);
}

/** The refusal's text, in the API's terms. */
export function workRefusalText(refusal: WorkRefusal, tenant: string): string {
  if (refusal === 'caller') return 'Too many expensive requests (queries, searches, serializations, imports) of this caller at once; retry when one has finished.';
  if (refusal === 'tenant') return `Too many expensive requests (queries, searches, serializations, imports) on tenant '${tenant}' at once; retry shortly.`;
  return 'The server runs as many expensive requests (queries, searches, serializations, imports) as it takes at once; retry shortly.';
}
