import type { Readable } from 'node:stream';
import type { FileSink } from '../../src/aas/import/import.service';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';

/** A file repository stand-in: what was stored, and a switch to fail the n-th store. */
export class MemorySink implements FileSink {
  stored = new Map<string, Buffer>();
  discarded: string[] = [];
  failAt = Infinity;
  private count = 0;
  async store(tenant: TenantEntity, file: { fileName: string; stream: Readable }) {
    if (++this.count >= this.failAt) throw new Error('injected failure');
    const chunks: Buffer[] = [];
    for await (const chunk of file.stream) chunks.push(Buffer.from(chunk));
    const tfp = `file:/sphere/${tenant.name}/${this.count}/${file.fileName}`;
    this.stored.set(tfp, Buffer.concat(chunks));
    return { tfp };
  }
  async deleteInTransaction(_tenant: TenantEntity, tfps: string[]) {
    return tfps.filter((tfp) => this.stored.delete(tfp));
  }
  async discard(_tenant: TenantEntity, tfp: string) {
    this.discarded.push(tfp);
  }
}

