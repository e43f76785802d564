import { TECHNICAL_DATA as TD } from '../../src/aas/search/indexes';

/**
 * Builders of Technical Data submodels (IDTA 02003-1-2) as the template structures them: GeneralInformation,
 * ProductClassifications, TechnicalProperties, FurtherInformation, with the template's semanticIds
 * (`TECHNICAL_DATA` of the search indexes). Shared by the query bench (test/bench/query.ts) and the search tests.
 */

export type Json = Record<string, unknown>;

export type Classification = [system: string, version: string, classId: string];

export const ref = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value }] });

export const prop = (idShort: string, semanticId: string, value: string, valueType = 'xs:string'): Json => ({ modelType: 'Property', idShort, semanticId: ref(semanticId), valueType, value });

export const smc = (idShort: string, semanticId: string, value: Json[]): Json => ({ modelType: 'SubmodelElementCollection', idShort, semanticId: ref(semanticId), value });

export const VALID_DATE = 'https://admin-shell.io/ZVEI/TechnicalData/ValidDate/1/1';

export interface TechnicalDataOptions {
  /** The submodel's idShort: 'TechnicalData' unless given. */
  idShort?: string;
  /** ManufacturerArticleNumber: `A-{id}` unless given. */
  articleNumber?: string;
  /** ManufacturerOrderCode: `O-{id}` unless given. */
  orderCode?: string;
  /** ManufacturerProductDesignation (en): 'Pump' unless given. */
  designation?: string;
  /** FurtherInformation's ValidDate (xs:date): 2024-01-01 unless given. */
  validDate?: string;
}

/** A Technical Data submodel; an empty list of classifications leaves ProductClassifications out (ZeroToOne). */
export function technicalData(id: string, manufacturer: string, classifications: Classification[], properties: Json[], options: TechnicalDataOptions = {}): Json {
  return {
    modelType: 'Submodel',
    id,
    idShort: options.idShort ?? 'TechnicalData',
    semanticId: ref(TD.submodel),
    submodelElements: [
      smc('GeneralInformation', TD.generalInformation, [
        prop('ManufacturerName', TD.manufacturerName, manufacturer),
        { modelType: 'MultiLanguageProperty', idShort: 'ManufacturerProductDesignation', semanticId: ref(TD.manufacturerProductDesignation), value: [{ language: 'en', text: options.designation ?? 'Pump' }] },
        prop('ManufacturerArticleNumber', TD.manufacturerArticleNumber, options.articleNumber ?? `A-${id}`),
        prop('ManufacturerOrderCode', TD.manufacturerOrderCode, options.orderCode ?? `O-${id}`),
      ]),
      // ZeroToOne: an empty collection is left out (AAS: a list is absent or has items).
      ...(classifications.length
        ? [
            smc(
              'ProductClassifications',
              TD.productClassifications,
              classifications.map(([system, version, classId], i) =>
                smc(`ProductClassificationItem${String(i + 1).padStart(2, '0')}`, TD.productClassificationItem, [
                  prop('ProductClassificationSystem', TD.productClassificationSystem, system),
                  prop('ClassificationSystemVersion', TD.classificationSystemVersion, version),
                  prop('ProductClassId', TD.productClassId, classId),
                ]),
              ),
            ),
          ]
        : []),
      smc('TechnicalProperties', TD.technicalProperties, properties),
      smc('FurtherInformation', TD.furtherInformation, [prop('ValidDate', VALID_DATE, options.validDate ?? '2024-01-01', 'xs:date')]),
    ],
  };
}
