const { jsonization } = require('@aas-core-works/aas-core3.0-typescript');
for (const N of [10000, 20000, 40000, 80000]) {
const els = [];
for (let i = 0; i < N; i++) els.push({ modelType: 'Property', idShort: 'p' + i, valueType: 'xs:string', value: 'v' + i });
const sm = { modelType: 'Submodel', id: 'urn:sm', submodelElements: els };
let t = Date.now();
const r = jsonization.submodelFromJsonable(sm);
console.log(N, 'parse', Date.now() - t);
t = Date.now();
for (const e of els) jsonization.submodelElementFromJsonable(e);
console.log(N, 'per element parse', Date.now() - t);
}
