import { it } from 'vitest';
import { readTolerantly } from '../../src/aas/model/tolerant-read';
import { parseSubmodel } from '../../src/aas/model/parse';
it('perf', () => {
  const make = () => ({ modelType: 'Submodel', id: 'urn:sm', submodelElements: Array.from({ length: 50000 }, (_, i) => ({ modelType: 'Property', idShort: `p${i}`, valueType: 'xs:string', value: 'v' })) as Record<string, unknown>[] });
  let t = Date.now();
  parseSubmodel(make(), []);
  console.log('clean', Date.now() - t);
  const broken = make();
  for (let i = 0; i < 50000; i += 500) delete broken.submodelElements[i].valueType;
  t = Date.now();
  const r = readTolerantly('Submodel', broken, []);
  console.log('100 broken', Date.now() - t, r.dropped.length);
}, 300000);
