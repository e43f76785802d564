import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import type { SerializationService } from '../aas/serialization/serialization.service';
import { referencedSubmodelIds, type ShellService } from '../aas/shells/shell.service';
import type { SubmodelService } from '../aas/submodels/submodel.service';
import { isLastingRefusal } from '../db/unavailable';
import type { TenantEntity } from '../management/tenants/tenant.entity';
import type { TenantService } from '../management/tenants/tenant.service';
import type { PushTargetConfig, PushTargetService } from './push-target.service';
import { ClientCredentialsTokens } from './client-credentials';
import { AASX_TYPE, AasxServerClient, BearerAuth, PushOptions, ShellContent, pushToS3 } from './pushers';

export interface PushWorkerOptions extends PushOptions {
  /** How often due jobs are looked for while there are none. */
  pollMs: number;
  /** Most jobs one round takes (and pushes at once). */
  batchSize: number;
  /** How long a taken job is left to its worker before another replica may take it (longer than a push may take). */
  leaseMs: number;
  /** The first retry's delay; each further failure doubles it, up to `maxBackoffMs`. */
  backoffMs: number;
  maxBackoffMs: number;
}

export const PUSH_WORKER_DEFAULTS: Omit<PushWorkerOptions, 'privateNetworks'> = {
  pollMs: 1_000,
  batchSize: 8,
  timeoutMs: 60_000,
  leaseMs: 3 * 60_000,
  backoffMs: 1_000,
  maxBackoffMs: 5 * 60_000,
};

interface Job {
  tenant_id: string;
  tenant_name: string;
  target_id: string;
  shell_key: string;
  shell_id: string;
  generation: number;
  attempts: number;
}

/**
 * Makes the pushes the outbox's delivery queued (PushTargetService.enqueue). A round takes due jobs with
 * `FOR UPDATE SKIP LOCKED` and leases them (`lease_until`) in one short transaction, so replicas never take the
 * same job, and no transaction stays open while a target is called. Each push reads the shell's current state: a
 * shell that exists is written (the AASX or the JSON environment of the shell, its submodels and their concept
 * descriptions, from the SerializationService), one that is gone is deleted at the target. On success the job is
 * deleted, unless the shell changed again meanwhile (its generation moved on: pushed again at once); on failure it
 * waits 1 s, 2 s, 4 s, ... up to 5 min. The target records its last success and its last error.
 */
export class PushWorker {
  private stopped = true;
  private running: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private readonly tokens: ClientCredentialsTokens;

  constructor(
    private readonly dataSource: DataSource,
    private readonly targets: PushTargetService,
    private readonly services: { shells: ShellService; submodels: SubmodelService; serialization: SerializationService; tenants: TenantService },
    private readonly log: Logger,
    private readonly options: PushWorkerOptions,
  ) {
    this.tokens = new ClientCredentialsTokens(options);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.running = this.loop();
  }

  /** Stops taking jobs and waits for the pushes under way; a job cut short is taken again once its lease ends. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.running;
  }

  private async loop(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      let pushed = 0;
      try {
        pushed = await this.runOnce();
        if (failures > 1) this.log.info({ afterFailures: failures }, 'push rounds run again');
        failures = 0;
      } catch (err) {
        // As for change events: a lasting refusal is an error; one failed round is said quietly, a fault that stays is warned about.
        failures++;
        if (isLastingRefusal(err)) {
          if (failures === 1 || failures % 60 === 0) this.log.error({ err, failures }, 'pushes cannot run: the database refuses the statements of a push round; retrying');
        } else if (failures === 1) this.log.info({ err }, 'push round failed; retrying');
        else if (failures === 2 || failures % 60 === 0) this.log.warn({ err, failures }, 'push round failed');
      }
      if (pushed === 0 && !this.stopped) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.options.pollMs);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = undefined;
      }
    }
  }

  /**
   * One round: takes due jobs and pushes them; how many it took. The tenants with due jobs are found by a read
   * without locks (the longest waiting first, as many as a round takes jobs), and the round's jobs are shared out
   * among them, so a tenant with a large backlog never holds up another; each tenant's jobs are taken by statements
   * that name it (on a database distributed by tenant, Citus, they go to that tenant's shard only).
   */
  async runOnce(): Promise<number> {
    const { batchSize } = this.options;
    const tenants: { tenant_id: string; tenant_name: string }[] = await this.dataSource.query(
      `SELECT d.tenant_id, t.name AS tenant_name
         FROM (SELECT tenant_id, min(next_attempt_at) AS due FROM push_jobs
                WHERE next_attempt_at <= now() AND (lease_until IS NULL OR lease_until <= now())
                GROUP BY tenant_id ORDER BY min(next_attempt_at) LIMIT $1) d
         JOIN tenants t ON t.id = d.tenant_id
        ORDER BY d.due`,
      [batchSize],
    );
    const jobs: Job[] = [];
    for (const [i, tenant] of tenants.entries()) {
      // An equal share of what is left for each tenant still to come.
      const share = Math.ceil((batchSize - jobs.length) / (tenants.length - i));
      if (share > 0) jobs.push(...(await this.take(tenant.tenant_id, tenant.tenant_name, share)));
    }
    await Promise.all(jobs.map((job) => this.push(job)));
    return jobs.length;
  }

  /** Takes up to `limit` due jobs of a tenant, leased to this worker. */
  private async take(tenantId: string, tenantName: string, limit: number): Promise<Job[]> {
    return this.dataSource.transaction(async (manager) => {
      const due: { target_id: string; shell_key: string }[] = await manager.query(
        `SELECT target_id, shell_key FROM push_jobs
          WHERE tenant_id = $1 AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until <= now())
          ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [tenantId, limit],
      );
      if (!due.length) return [];
      // UPDATE answers [rows, count] through TypeORM's driver.
      const [taken] = (await manager.query(
        `UPDATE push_jobs SET lease_until = now() + $2 * interval '1 millisecond'
          WHERE tenant_id = $1 AND (target_id, shell_key) IN (SELECT * FROM unnest($3::uuid[], $4::text[]))
          RETURNING tenant_id, target_id, shell_key, shell_id, generation, attempts`,
        [tenantId, this.options.leaseMs, due.map((d) => d.target_id), due.map((d) => d.shell_key)],
      )) as [Omit<Job, 'tenant_name'>[], number];
      return taken.map((job) => ({ ...job, tenant_name: tenantName }));
    });
  }

  private async push(job: Job): Promise<void> {
    let dir: string | undefined;
    try {
      const target = await this.targets.config(job.tenant_id, job.target_id);
      if (!target) return; // deleted meanwhile, its jobs with it
      const tenant = await this.services.tenants.byName(job.tenant_name);
      if (!tenant) return;
      dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'push-'));
      const content = await this.content(tenant, target, job.shell_id, dir);
      await this.send(target, job, content);
      await this.succeeded(job);
    } catch (err) {
      await this.failed(job, err as Error).catch((e) => this.log.warn({ err: e }, 'could not record a failed push'));
    } finally {
      if (dir) await fs.promises.rm(dir, { recursive: true, force: true });
    }
  }

  /** The shell's current content for this target, in a file under `dir`; null when the shell is gone. */
  private async content(tenant: TenantEntity, target: PushTargetConfig, shellId: string, dir: string): Promise<ShellContent | null> {
    const shell = (await this.services.shells.findMany(tenant, [shellId])).get(shellId);
    if (!shell) return null;
    // Submodels the shell references but the tenant does not hold are left out (the serialization would refuse them).
    const referenced = referencedSubmodelIds(shell);
    const held = referenced.length ? await this.services.submodels.heads(tenant, referenced) : new Map();
    const request = { aasIds: [shellId], submodelIds: referenced.filter((id) => held.has(id)), includeConceptDescriptions: true };
    const aasx = target.kind === 'aasx-server' || target.settings.format === 'aasx';
    const chunks = await this.services.serialization.serialize(tenant, request, 'json', aasx);
    const file = path.join(dir, aasx ? 'shell.aasx' : 'shell.json');
    await pipeline(Readable.from(chunks), fs.createWriteStream(file));
    const { size } = await fs.promises.stat(file);
    const base = (typeof shell.idShort === 'string' && /^[A-Za-z0-9_-]{1,100}$/.test(shell.idShort) ? shell.idShort : 'shell').slice(0, 100);
    return { path: file, size, contentType: aasx ? AASX_TYPE : 'application/json', fileName: `${base}.${aasx ? 'aasx' : 'json'}` };
  }

  private async send(target: PushTargetConfig, job: Job, content: ShellContent | null): Promise<void> {
    if (target.kind === 's3') {
      await pushToS3(target.settings, target.secret, job.shell_id, content, this.options);
      return;
    }
    const client = new AasxServerClient(target.settings, this.authOf(target), this.options);
    const key = [job.tenant_id, job.target_id, job.shell_key];
    const [known]: { package_id: string }[] = await this.dataSource.query(
      'SELECT package_id FROM push_packages WHERE tenant_id = $1 AND target_id = $2 AND shell_key = $3',
      key,
    );
    if (content === null) {
      if (!known) return;
      await client.delete(known.package_id);
      await this.dataSource.query('DELETE FROM push_packages WHERE tenant_id = $1 AND target_id = $2 AND shell_key = $3', key);
      return;
    }
    // A package the server no longer has (deleted there) is posted anew.
    if (known && (await client.replace(known.package_id, job.shell_id, content))) return;
    const packageId = await client.create(job.shell_id, content);
    await this.dataSource.query(
      `INSERT INTO push_packages (tenant_id, target_id, shell_key, shell_id, package_id) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (tenant_id, target_id, shell_key) DO UPDATE SET package_id = EXCLUDED.package_id`,
      [...key, job.shell_id, packageId],
    );
  }

  /** The target's bearer token: its static token, or one fetched with its client credentials (renewed after a 401). */
  private authOf(target: Extract<PushTargetConfig, { kind: 'aasx-server' }>): BearerAuth {
    const { clientCredentials } = target.settings;
    const secret = target.secret;
    if (!clientCredentials || secret === null) return { current: () => Promise.resolve(secret) };
    const key = `${target.tenantId}/${target.id}`;
    return {
      current: () => this.tokens.token(key, clientCredentials, secret),
      renew: (refused) => this.tokens.renew(key, clientCredentials, secret, refused),
    };
  }

  private async succeeded(job: Job): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const key = [job.tenant_id, job.target_id, job.shell_key];
      const [, deleted] = (await manager.query('DELETE FROM push_jobs WHERE tenant_id = $1 AND target_id = $2 AND shell_key = $3 AND generation = $4', [...key, job.generation])) as [unknown[], number];
      // Changed again while it was pushed: pushed again, at once.
      if (!deleted) await manager.query('UPDATE push_jobs SET lease_until = NULL, attempts = 0, next_attempt_at = now() WHERE tenant_id = $1 AND target_id = $2 AND shell_key = $3', key);
      await manager.query('UPDATE push_targets SET last_success_at = now() WHERE tenant_id = $1 AND id = $2', [job.tenant_id, job.target_id]);
    });
  }

  private async failed(job: Job, err: Error): Promise<void> {
    const delay = Math.min(this.options.backoffMs * 2 ** Math.min(job.attempts, 30), this.options.maxBackoffMs);
    const message = `${err.message || err.name}`.slice(0, 1000);
    this.log.info({ target: job.target_id, shell: job.shell_id, attempts: job.attempts + 1, retryInMs: delay, reason: message }, 'push failed; retried later');
    await this.dataSource.transaction(async (manager) => {
      await manager.query(
        `UPDATE push_jobs SET attempts = attempts + 1, lease_until = NULL, next_attempt_at = now() + $4 * interval '1 millisecond'
          WHERE tenant_id = $1 AND target_id = $2 AND shell_key = $3`,
        [job.tenant_id, job.target_id, job.shell_key, delay],
      );
      await manager.query('UPDATE push_targets SET last_error = $3, last_error_at = now() WHERE tenant_id = $1 AND id = $2', [job.tenant_id, job.target_id, message]);
    });
  }
}
