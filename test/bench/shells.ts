/** Sample data for the benchmark: realistic shells of about 1.5 KB in AAS JSON. */

/** The AAS identifier of the bench's n-th shell, unique per run (`run` tells runs apart). */
export const shellId = (run: string, n: number) => `https://bench.example.com/ids/aas/${run}/${String(n).padStart(6, '0')}`;

const SUBMODELS = ['Nameplate', 'TechnicalData', 'HandoverDocumentation', 'CarbonFootprint'];

const externalRef = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value }] });

export function sampleShell(run: string, n: number): Record<string, unknown> {
  const id = shellId(run, n);
  const serial = `SN-${run}-${String(n).padStart(6, '0')}`;
  return {
    modelType: 'AssetAdministrationShell',
    id,
    idShort: `Pump_${n}`,
    displayName: [{ language: 'en', text: `Centrifugal pump ${n}` }],
    description: [
      { language: 'en', text: `Digital twin of centrifugal pump ${serial}, 7.5 kW, installed in hall 3, line ${n % 12}.` },
      { language: 'de', text: `Digitaler Zwilling der Kreiselpumpe ${serial}, 7,5 kW, installiert in Halle 3, Linie ${n % 12}.` },
    ],
    administration: { version: '1', revision: String(n % 10) },
    assetInformation: {
      assetKind: 'Instance',
      globalAssetId: `https://bench.example.com/ids/asset/${run}/${n}`,
      specificAssetIds: [
        { name: 'serialNumber', value: serial, externalSubjectId: externalRef('https://bench.example.com/ids/manufacturer') },
        { name: 'manufacturerPartId', value: `CP-75-${n % 7}` },
        { name: 'customerPartId', value: `PLANT3-PUMP-${n}` },
      ],
      assetType: 'https://bench.example.com/ids/type/CP-75',
    },
    submodels: SUBMODELS.map((name) => ({
      type: 'ModelReference',
      keys: [{ type: 'Submodel', value: `https://bench.example.com/ids/sm/${run}/${n}/${name}` }],
    })),
  };
}
