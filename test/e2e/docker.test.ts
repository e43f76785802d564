import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from '../support/server-process';

/**
 * docker/: the image and the compose stack. Where no Docker daemon runs (CI containers), the files are checked as
 * text: the compose services wired to each other, image versions pinned, the Dockerfile's stages. Where one runs,
 * the image is built and the stack started.
 */
const COMPOSE = path.join(ROOT, 'docker/compose.yaml');
const DOCKERFILE = path.join(ROOT, 'docker/Dockerfile');
const compose = parse(fs.readFileSync(COMPOSE, 'utf8'));
const services = compose.services as Record<string, Record<string, any>>;

interface Stage {
  from: string;
  name?: string;
  /** The stage's instructions, one a line (continuations joined), without the FROM line. */
  instructions: string[];
}

/** The Dockerfile's stages, in order. */
function stages(text: string): Stage[] {
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const out: Stage[] = [];
  for (const line of lines) {
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?$/i.exec(line);
    if (from) out.push({ from: from[1], name: from[2], instructions: [] });
    else out.at(-1)?.instructions.push(line);
  }
  return out;
}

/** A required setting: `${NAME:?message}`, no default. */
const required = (name: string) => expect.stringMatching(new RegExp(`^\\$\\{${name}:\\?.+\\}$`));

describe('docker/compose.yaml', () => {
  it('wires the app to its broker and object store, not only to PostgreSQL', () => {
    const { app } = services;
    expect(app.environment).toMatchObject({
      DATABASE_URL: 'postgres://asset:asset@postgres:5432/asset',
      MQTT_URL: 'mqtt://mqtt:1883',
      FILE_STORE: 's3',
      S3_ENDPOINT: 'http://minio:9000',
      S3_BUCKET: '${S3_BUCKET:-asset-files}',
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: required('MINIO_ROOT_USER'),
      S3_SECRET_ACCESS_KEY: required('MINIO_ROOT_PASSWORD'),
    });
    // It starts once the database and the broker answer and the bucket exists.
    expect(app.depends_on).toEqual({
      postgres: { condition: 'service_healthy' },
      mqtt: { condition: 'service_healthy' },
      'storage-init': { condition: 'service_completed_successfully' },
    });
    // The hosts the app's URLs name are services of the stack, listening where the URLs say.
    expect(Object.keys(services)).toEqual(expect.arrayContaining(['postgres', 'mqtt', 'minio', 'storage-init', 'provision']));
    expect(fs.readFileSync(path.join(ROOT, 'docker/mosquitto.conf'), 'utf8')).toMatch(/^listener 1883$/m);
  });

  it('takes the MinIO credentials from docker/.env (no defaults), the same for MinIO, its bucket step and the app', () => {
    const { minio } = services;
    const init = services['storage-init'];
    expect(minio.environment).toEqual({ MINIO_ROOT_USER: required('MINIO_ROOT_USER'), MINIO_ROOT_PASSWORD: required('MINIO_ROOT_PASSWORD') });
    expect(minio.healthcheck.test).toEqual(['CMD', 'mc', 'ready', 'local']);
    expect(init.depends_on).toEqual({ minio: { condition: 'service_healthy' } });
    expect(init.environment).toMatchObject({ MINIO_ROOT_USER: required('MINIO_ROOT_USER'), MINIO_ROOT_PASSWORD: required('MINIO_ROOT_PASSWORD'), S3_BUCKET: '${S3_BUCKET:-asset-files}' });
    const script = init.entrypoint.join(' ');
    expect(script).toContain('mc alias set store http://minio:9000');
    expect(script).toContain('mc mb --ignore-existing "store/$$S3_BUCKET"');
    expect(init.restart).toBe('no');
    // docker/.env.example names them without values; git and the build context keep docker/.env out.
    const example = fs.readFileSync(path.join(ROOT, 'docker/.env.example'), 'utf8');
    for (const name of ['BOOTSTRAP_CLIENT_ID', 'BOOTSTRAP_CLIENT_SECRET', 'MINIO_ROOT_USER', 'MINIO_ROOT_PASSWORD']) expect(example).toMatch(new RegExp(`^${name}=$`, 'm'));
    const dockerignore = fs.readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim());
    expect(dockerignore).toContain('**/.env');
    expect(fs.readFileSync(path.join(ROOT, '.gitignore'), 'utf8').split('\n')).toContain('.env');
  });

  it('pins every image it pulls to a version (no latest, no bare major for the stores)', () => {
    const pulled = Object.entries(services).filter(([, s]) => !s.build);
    expect(pulled.map(([name]) => name).sort()).toEqual(['minio', 'mqtt', 'postgres', 'storage-init']);
    for (const [name, service] of pulled) {
      const [, tag] = /:([^:/]+)$/.exec(service.image) ?? [];
      expect(tag, name).toBeDefined();
      expect(tag, name).not.toBe('latest');
      // A version with at least a minor (17.6, 2.0.22) or a MinIO release stamp.
      expect(tag, `${name}: ${service.image}`).toMatch(/^\d+\.\d+(\.\d+)?$|^RELEASE\.\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z$/);
    }
  });

  it('runs the provisioning from an image that has what the script needs, with no package download at run time', () => {
    const { provision } = services;
    expect(provision.build).toEqual({ context: '..', dockerfile: 'docker/Dockerfile', target: 'provision' });
    expect(JSON.stringify(provision)).not.toMatch(/apk add|apt-get|npm (i|install)/);
  });
});

describe('docker/Dockerfile', () => {
  const all = stages(fs.readFileSync(DOCKERFILE, 'utf8'));
  const byName = (name: string) => all.find((s) => s.name === name)!;

  it('builds in one stage, provisions in another, and runs the last (the default target) on Node 24 LTS as a non-root user', () => {
    expect(all.map((s) => s.name)).toEqual(['build', 'provision', 'runtime']);
    const runtime = all.at(-1)!;
    expect(runtime.name).toBe('runtime');
    expect(byName('build').from).toMatch(/^node:24[-.]/);
    expect(runtime.from).toMatch(/^node:24[-.]/);
    // Production dependencies, the compiled code and the AAS OpenAPI files it reads at start-up.
    expect(runtime.instructions).toContain('RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force');
    expect(runtime.instructions).toContain('COPY --from=build /app/dist ./dist');
    expect(runtime.instructions.some((i) => i.startsWith('COPY --from=build /app/rest-facade/openapi/aas-api-v3.0.4'))).toBe(true);
    // Not root from USER on; the data directory is the one thing it may write.
    const user = runtime.instructions.findLastIndex((i) => i.startsWith('USER '));
    expect(runtime.instructions[user]).toBe('USER node');
    expect(runtime.instructions.slice(user + 1).some((i) => /^(RUN|USER root)/.test(i))).toBe(false);
    expect(runtime.instructions).toContain('RUN mkdir -p /data && chown node:node /data');
    expect(runtime.instructions.some((i) => i.startsWith('HEALTHCHECK') && i.includes('/health/ready'))).toBe(true);
    expect(runtime.instructions).toContain('CMD ["node", "dist/src/main.js"]');
  });

  it('installs the provisioning tools at build time and runs docker/provision.sh unprivileged', () => {
    const provision = byName('provision');
    const install = provision.instructions.find((i) => i.startsWith('RUN apt-get'))!;
    for (const tool of ['bash', 'curl', 'jq', 'ca-certificates']) expect(install, tool).toMatch(new RegExp(`\\b${tool}\\b`));
    expect(provision.instructions).toContain('COPY docker/provision.sh /usr/local/bin/provision.sh');
    expect(provision.instructions).toContain('USER nobody');
    expect(provision.instructions).toContain('ENTRYPOINT ["bash", "/usr/local/bin/provision.sh"]');
  });
});

const dockerCompose = spawnSync('docker', ['compose', 'version']).status === 0 && spawnSync('docker', ['info']).status === 0;
describe.skipIf(!dockerCompose)('the compose stack on a Docker daemon', () => {
  it(
    'builds, starts healthy, serves the front door and provisions a tenant; then goes away with its volumes',
    () => {
      const project = `asset-platform-test-${randomBytes(3).toString('hex')}`;
      const env = {
        ...process.env,
        BOOTSTRAP_CLIENT_ID: randomUUID(),
        BOOTSTRAP_CLIENT_SECRET: randomBytes(32).toString('base64url'),
        MINIO_ROOT_USER: 'asset-test',
        MINIO_ROOT_PASSWORD: randomBytes(24).toString('base64url'),
      };
      const compose = (...args: string[]) => spawnSync('docker', ['compose', '-p', project, '-f', COMPOSE, ...args], { env, encoding: 'utf8', timeout: 900_000 });
      try {
        const up = compose('up', '--build', '--wait', '--wait-timeout', '300', 'app');
        expect(up.status, up.stderr).toBe(0);
        const front = compose('exec', '-T', 'app', 'node', '-e', "fetch('http://127.0.0.1:8080/').then(async (r) => { console.log(r.status, (await r.json()).version); })");
        expect(front.stdout).toMatch(/^200 /);
        const provision = compose('run', '--rm', 'provision');
        expect(provision.status, provision.stderr).toBe(0);
        expect(provision.stdout).toMatch(/^CLIENT_SECRET=/m);
      } finally {
        compose('down', '-v', '--remove-orphans');
      }
    },
    1_200_000,
  );
});
