import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseSize } from '../../src/config';

describe('config', () => {
  it('defaults to the embedded database with a showcase default tenant', () => {
    const config = loadConfig({});
    expect(config.databaseUrl).toBeUndefined();
    expect(config.defaultTenantShowcase).toBe(true);
    expect(config.port).toBe(8080);
    expect(config.publicUrl).toBe('http://localhost:8080');
    expect(config.bodyLimitBytes).toBeGreaterThan(1024 * 1024);
  });

  it('does not put the default tenant in showcase mode on a real database unless asked', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://x/y' }).defaultTenantShowcase).toBe(false);
    expect(loadConfig({ DATABASE_URL: 'postgres://x/y', DEFAULT_TENANT_SHOWCASE: 'true' }).defaultTenantShowcase).toBe(true);
  });

  it('serves the Management API at PUBLIC_URL unless MANAGE_URL is set', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://aas.example.com/' }).manageUrl).toBe('https://aas.example.com');
    expect(loadConfig({ PUBLIC_URL: 'https://aas.example.com', MANAGE_URL: 'https://manage.example.com' }).manageUrl).toBe('https://manage.example.com');
    expect(() => loadConfig({ MANAGE_URL: 'nope' })).toThrow(/MANAGE_URL/);
  });

  it('sizes the read cache at 2% of memory up to 256 MB unless READ_CACHE_SIZE says otherwise; 0 turns it off', () => {
    const { maxBytes, ttlMs } = loadConfig({}).readCache;
    expect(maxBytes).toBeGreaterThan(0);
    expect(maxBytes).toBeLessThanOrEqual(256 * 1024 ** 2);
    expect(ttlMs).toBe(60_000);
    expect(loadConfig({ READ_CACHE_SIZE: '64mb', READ_CACHE_TTL_SECONDS: '5' }).readCache).toEqual({ maxBytes: 64 * 1024 ** 2, ttlMs: 5_000 });
    expect(loadConfig({ READ_CACHE_SIZE: '0' }).readCache.maxBytes).toBe(0);
    expect(() => loadConfig({ READ_CACHE_SIZE: 'lots' })).toThrow(/size/);
    expect(() => loadConfig({ READ_CACHE_TTL_SECONDS: '0' })).toThrow(/READ_CACHE_TTL_SECONDS/);
  });

  it('waits at most 5 s for a database connection and 5 s for an answer before checking, unless DB_CONNECT_TIMEOUT_MS and DB_ANSWER_TIMEOUT_MS say otherwise', () => {
    expect(loadConfig({})).toMatchObject({ dbConnectTimeoutMs: 5_000, dbAnswerTimeoutMs: 5_000 });
    expect(loadConfig({ DB_CONNECT_TIMEOUT_MS: '1500', DB_ANSWER_TIMEOUT_MS: '20000' })).toMatchObject({ dbConnectTimeoutMs: 1_500, dbAnswerTimeoutMs: 20_000 });
    for (const [name, value] of [['DB_CONNECT_TIMEOUT_MS', '0'], ['DB_CONNECT_TIMEOUT_MS', '5s'], ['DB_ANSWER_TIMEOUT_MS', '99'], ['DB_ANSWER_TIMEOUT_MS', '600001']]) {
      expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`${name} must be an integer in 100..600000`));
    }
  });

  it('limits failed authentications to 5 a minute unless AUTH_FAILURE_LIMIT says otherwise', () => {
    expect(loadConfig({}).auth.failureLimit).toBe(5);
    expect(loadConfig({ AUTH_FAILURE_LIMIT: '50' }).auth.failureLimit).toBe(50);
    expect(() => loadConfig({ AUTH_FAILURE_LIMIT: '0' })).toThrow(/AUTH_FAILURE_LIMIT/);
  });

  it('sends no CORS headers unless CORS_ORIGINS lists origins or says *', () => {
    expect(loadConfig({}).corsOrigins).toBeUndefined();
    expect(loadConfig({ CORS_ORIGINS: ' ' }).corsOrigins).toBeUndefined();
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toBe('*');
    expect(loadConfig({ CORS_ORIGINS: 'https://ui.example.com, http://localhost:3000/,HTTPS://UI.example.com:443' }).corsOrigins).toEqual([
      'https://ui.example.com',
      'http://localhost:3000',
    ]);
    for (const bad of ['ui.example.com', 'https://ui.example.com/app', 'ftp://ui.example.com', '*,https://a.example', 'https://a.example?x=1', 'https://user@a.example']) {
      expect(() => loadConfig({ CORS_ORIGINS: bad }), bad).toThrow(/CORS_ORIGINS/);
    }
  });

  it('believes no forwarded header unless TRUST_PROXY gives a hop count or the proxies\' addresses', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    for (const off of ['', 'off', 'false', 'FALSE', '0']) expect(loadConfig({ TRUST_PROXY: off }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toEqual({ hops: 1 });
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toEqual({ hops: 2 });
    expect(loadConfig({ TRUST_PROXY: '10.0.0.7, 10.1.0.0/16,loopback, fd00::/8' }).trustProxy).toEqual({ addresses: ['10.0.0.7', '10.1.0.0/16', 'loopback', 'fd00::/8'] });
  });

  it('refuses a TRUST_PROXY that would believe anyone or is no address, naming the variable', () => {
    for (const anyone of ['true', 'on', 'yes', 'TRUE']) expect(() => loadConfig({ TRUST_PROXY: anyone })).toThrow(/TRUST_PROXY.*from anyone/);
    for (const bad of ['proxy.example', '10.0.0.300', '10.0.0.0/33', '10.0.0.7,', '-1', '1.5', '101', 'all']) {
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(/TRUST_PROXY/);
    }
  });

  it('parses sizes', () => {
    expect(parseSize('64mb')).toBe(64 * 1024 * 1024);
    expect(parseSize('10KB')).toBe(10240);
    expect(parseSize('123')).toBe(123);
  });

  it('rejects invalid settings with a message naming them', () => {
    expect(() => loadConfig({ PORT: 'x' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: '70000' })).toThrow(/PORT/);
    expect(() => loadConfig({ BODY_LIMIT: 'lots' })).toThrow(/size/);
    expect(() => loadConfig({ AUTH_ALGORITHMS: 'HS256' })).toThrow(/AUTH_ALGORITHMS/);
    expect(() => loadConfig({ AUTH_ALGORITHMS: 'none' })).toThrow(/AUTH_ALGORITHMS/);
    expect(() => loadConfig({ PUBLIC_URL: 'not a url' })).toThrow(/PUBLIC_URL/);
    expect(() => loadConfig({ DEFAULT_TENANT_SHOWCASE: 'maybe' })).toThrow(/DEFAULT_TENANT_SHOWCASE/);
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
    expect(() => loadConfig({ SIGNUP_ENABLED: 'perhaps' })).toThrow(/SIGNUP_ENABLED/);
    expect(() => loadConfig({ BOOTSTRAP_CLIENT_ID: 'not-a-uuid', BOOTSTRAP_CLIENT_SECRET: 'x'.repeat(32) })).toThrow(/BOOTSTRAP_CLIENT_ID/);
    expect(() => loadConfig({ BOOTSTRAP_CLIENT_SECRET: 'x'.repeat(32) })).toThrow(/BOOTSTRAP_CLIENT_ID/);
    expect(() => loadConfig({ BOOTSTRAP_CLIENT_ID: '6f1c1a52-4d7e-4a8e-9c1e-2f5b3c4d5e6f', BOOTSTRAP_CLIENT_SECRET: 'short' })).toThrow(/BOOTSTRAP_CLIENT_SECRET/);
    expect(() => loadConfig({ TOKEN_TTL_SEC: '5' })).toThrow(/TOKEN_TTL_SEC/);
  });

  it('names the variable in every refusal: sizes, URLs of the wrong scheme, hosts, connection strings', () => {
    const refusal = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as Error).message;
      }
      throw new Error(`accepted ${JSON.stringify(env)}`);
    };
    for (const name of ['BODY_LIMIT', 'RESPONSE_LIMIT', 'READ_CACHE_SIZE', 'REFUSED_BODY_RATE']) expect(refusal({ [name]: 'lots' })).toMatch(new RegExp(`^${name}: not a size`));
    // `localhost:8080` parses as a URL of the scheme "localhost:"; it is not an http(s) URL.
    expect(refusal({ PUBLIC_URL: 'localhost:8080' })).toMatch(/^PUBLIC_URL must be a http or https URL/);
    expect(refusal({ PUBLIC_URL: 'ftp://files.example.com' })).toMatch(/^PUBLIC_URL/);
    expect(refusal({ PUBLIC_URL: 'https://aas.example.com/?x=1' })).toMatch(/^PUBLIC_URL must be a base URL/);
    expect(refusal({ MANAGE_URL: 'https://user:pw@manage.example.com' })).toMatch(/^MANAGE_URL must be a base URL/);
    expect(refusal({ S3_ENDPOINT: 'minio:9000', FILE_STORE: 's3', S3_BUCKET: 'files' })).toMatch(/^S3_ENDPOINT/);
    expect(refusal({ MQTT_URL: 'http://broker:1883' })).toMatch(/^MQTT_URL must be a mqtt or mqtts or ws or wss URL/);
    // Credentials in a refused URL are not repeated.
    expect(refusal({ MQTT_URL: 'tcp://user:secret@broker:1883' })).not.toContain('secret');
    expect(refusal({ HOST: 'not a host' })).toMatch(/^HOST/);
    expect(refusal({ TENANT_HOST_SUFFIX: '*.example.com' })).toMatch(/^TENANT_HOST_SUFFIX/);
    const database = refusal({ DATABASE_URL: 'mysql://root:hunter2@db/assets' });
    expect(database).toMatch(/^DATABASE_URL/);
    expect(database).not.toContain('hunter2');
    // What is accepted: the usual forms.
    expect(loadConfig({ HOST: '::' }).host).toBe('::');
    expect(loadConfig({ HOST: 'localhost' }).host).toBe('localhost');
    expect(loadConfig({ MQTT_URL: 'mqtt://mqtt:1883' }).events.mqttUrl).toBe('mqtt://mqtt:1883');
    expect(loadConfig({ DATABASE_URL: 'postgresql:///assets?host=/var/run/postgresql' }).databaseUrl).toBe('postgresql:///assets?host=/var/run/postgresql');
    expect(loadConfig({ TENANT_HOST_SUFFIX: 'assets.example.com' }).tenantHostSuffix).toBe('assets.example.com');
  });

  it('reads and drops refused bodies at 48 MB a second unless REFUSED_BODY_RATE says otherwise, never below 64 KB', () => {
    expect(loadConfig({}).refusedBodyRate).toBe(48 * 1024 * 1024);
    expect(loadConfig({ REFUSED_BODY_RATE: '8mb' }).refusedBodyRate).toBe(8 * 1024 * 1024);
    expect(() => loadConfig({ REFUSED_BODY_RATE: '0' })).toThrow(/^REFUSED_BODY_RATE must be at least 64kb/);
    expect(() => loadConfig({ REFUSED_BODY_RATE: '1kb' })).toThrow(ConfigError);
  });

  it('keeps files in PostgreSQL up to 512 MB an upload unless FILE_STORE and FILE_UPLOAD_LIMIT say otherwise', () => {
    expect(loadConfig({}).files).toEqual({ uploadLimitBytes: 512 * 1024 ** 2, store: { kind: 'postgres' } });
    expect(loadConfig({ FILE_UPLOAD_LIMIT: '2gb' }).files.uploadLimitBytes).toBe(2 * 1024 ** 3);
    expect(
      loadConfig({
        FILE_STORE: 's3',
        S3_ENDPOINT: 'http://127.0.0.1:9000/',
        S3_BUCKET: 'asset-files',
        S3_ACCESS_KEY_ID: 'key',
        S3_SECRET_ACCESS_KEY: 'secret',
        S3_FORCE_PATH_STYLE: 'true',
      }).files.store,
    ).toEqual({
      kind: 's3',
      endpoint: 'http://127.0.0.1:9000',
      bucket: 'asset-files',
      region: 'us-east-1',
      credentials: { accessKeyId: 'key', secretAccessKey: 'secret' },
      forcePathStyle: true,
    });
    // Without keys, the AWS SDK's default credential chain; without an endpoint, AWS S3 of the region.
    expect(loadConfig({ FILE_STORE: 's3', S3_BUCKET: 'b-1', S3_REGION: 'eu-central-1' }).files.store).toEqual({
      kind: 's3',
      endpoint: undefined,
      bucket: 'b-1',
      region: 'eu-central-1',
      credentials: undefined,
      forcePathStyle: false,
    });
  });

  it('rejects file store settings that cannot work', () => {
    expect(() => loadConfig({ FILE_UPLOAD_LIMIT: 'huge' })).toThrow(/FILE_UPLOAD_LIMIT/);
    expect(() => loadConfig({ FILE_UPLOAD_LIMIT: '0' })).toThrow(/FILE_UPLOAD_LIMIT/);
    expect(() => loadConfig({ FILE_STORE: 'disk' })).toThrow(/FILE_STORE/);
    expect(() => loadConfig({ FILE_STORE: 's3' })).toThrow(/S3_BUCKET/);
    expect(() => loadConfig({ FILE_STORE: 's3', S3_BUCKET: 'Not_A_Bucket' })).toThrow(/S3_BUCKET/);
    expect(() => loadConfig({ FILE_STORE: 's3', S3_BUCKET: 'files', S3_ACCESS_KEY_ID: 'key' })).toThrow(/S3_SECRET_ACCESS_KEY/);
    expect(() => loadConfig({ FILE_STORE: 's3', S3_BUCKET: 'files', S3_ENDPOINT: 'nowhere' })).toThrow(/S3_ENDPOINT/);
    expect(() => loadConfig({ FILE_STORE: 's3', S3_BUCKET: 'files', S3_FORCE_PATH_STYLE: 'sometimes' })).toThrow(/S3_FORCE_PATH_STYLE/);
  });
});
