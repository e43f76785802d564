import fs from 'node:fs';
import path from 'node:path';
import sax from 'sax';
import type { Target } from './run';

/**
 * DCC conversion (`POST {tenant_url}/sphere/api/v1.0/dcc/conversions`): a certificate of 1,000 quantities,
 * generated from a real one (its administrative data, one measurement result of 1,000 si:real quantities with names in
 * two languages and expanded uncertainties), stored (mode=store, each time under a new submodel id) and previewed,
 * against parsing the same XML alone with sax in this process (the baseline, the same parser the server reads
 * it with). Medians of RUNS after WARMUP. Goal: a conversion (store) under 1 s on PostgreSQL.
 */
export interface DccBenchContext {
  server: Target;
  tenant: string;
}

const QUANTITIES = 1_000;
const RUNS = 9;
const WARMUP = 2;
/** The real certificate the generated one starts from, in the source tree (the bench runs from dist/test/bench). */
const FIXTURE = [path.resolve(__dirname, '../../../test/fixtures/dcc'), path.resolve(__dirname, '../fixtures/dcc')]
  .map((dir) => path.join(dir, 'dcc_gp_temperature_typical_v12.xml'))
  .find((file) => fs.existsSync(file))!;

/** The certificate: the fixture with its measurement results replaced by one result of `count` quantities. */
export function generatedDcc(count: number): string {
  const quantities: string[] = [];
  for (let i = 0; i < count; i++) {
    quantities.push(
      `<dcc:quantity refType="basic_measuredValue"><dcc:name><dcc:content lang="de">Messwert ${i}</dcc:content><dcc:content lang="en">Measured value ${i}</dcc:content></dcc:name>` +
        `<si:real><si:value>${(293.15 + i / 1000).toFixed(4)}</si:value><si:unit>\\kelvin</si:unit><si:expandedUnc><si:uncertainty>0.0${(i % 90) + 10}</si:uncertainty>` +
        `<si:coverageFactor>2</si:coverageFactor><si:coverageProbability>0.95</si:coverageProbability></si:expandedUnc></si:real></dcc:quantity>`,
    );
  }
  const results =
    '<dcc:measurementResults><dcc:measurementResult><dcc:name><dcc:content lang="en">Generated results</dcc:content></dcc:name><dcc:results>' +
    `<dcc:result><dcc:name><dcc:content lang="en">Table</dcc:content></dcc:name><dcc:data><dcc:list>${quantities.join('')}</dcc:list></dcc:data></dcc:result>` +
    '</dcc:results></dcc:measurementResult></dcc:measurementResults>';
  return fs.readFileSync(FIXTURE, 'utf8').replace(/<dcc:measurementResults>[\s\S]*<\/dcc:measurementResults>/, results);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Milliseconds of `work`, its median over RUNS after WARMUP. */
async function timed(work: (i: number) => Promise<void> | void): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const started = process.hrtime.bigint();
    await work(i);
    if (i >= WARMUP) times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return median(times);
}

/** The lines the bench prints. */
export async function benchDcc(context: DccBenchContext, run: string): Promise<string[]> {
  const xml = generatedDcc(QUANTITIES);
  const url = `${context.server.url}/tenants/${context.tenant}/sphere/api/v1.0/dcc/conversions`;
  const post = async (query: string, expected: number) => {
    const res = await fetch(`${url}?${query}`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: xml });
    const text = await res.text();
    if (res.status !== expected) throw new Error(`dcc bench: POST ?${query} answered ${res.status}: ${text.slice(0, 300)}`);
  };
  const parse = await timed(() => {
    const parser = sax.parser(true, { xmlns: true });
    parser.write(xml).close();
  });
  const preview = await timed(() => post('mode=preview', 200));
  const store = await timed((i) => post(`mode=store&submodelId=${encodeURIComponent(`urn:dcc:bench:${run}:${i}`)}`, 201));
  const kb = (Buffer.byteLength(xml) / 1024).toFixed(0);
  return [
    `DCC of ${QUANTITIES} quantities (${kb} KiB): store ${store.toFixed(0)} ms, preview ${preview.toFixed(0)} ms; parsing the same XML alone (sax) ${parse.toFixed(1)} ms`,
    `  ratio store/parse ${(store / parse).toFixed(1)}, preview/parse ${(preview / parse).toFixed(1)} (medians of ${RUNS})`,
    `goal DCC conversion of ${QUANTITIES} quantities (store) < 1 s: ${store.toFixed(0)} ms ${store < 1000 ? 'PASS' : 'FAIL'}`,
  ];
}
