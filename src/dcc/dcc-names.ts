/**
 * The element names of the DCC namespace (`https://ptb.de/dcc`) in the schema versions 2.4 to 3.3 (the union of the
 * names the XSDs 3.1.2 and 3.3.0 declare; 2.4 and 3.2 declare no others). An element of the DCC namespace by any other
 * name breaks the schema (a typo such as `dcc:named`): the conversion refuses it.
 */
export const DCC_ELEMENT_NAMES: ReadonlySet<string> = new Set([
  'administrativeData', 'beginPerformanceDate', 'byteData', 'calibrationLaboratory', 'calibrationLaboratoryCode', 'certificate',
  'charsXMLList', 'city', 'classID', 'comment', 'conformity', 'conformityXMLList', 'contact', 'content', 'convention', 'coreData',
  'countryCode', 'countryCodeISO3166_1', 'cryptElectronicSeal', 'cryptElectronicSignature', 'cryptElectronicTimeStamp',
  'customer', 'data', 'dataBase64', 'date', 'dateTime', 'dateTimeXMLList', 'dccSoftware', 'declaration', 'description', 'descriptionData',
  'digitalCalibrationCertificate', 'document', 'eMail', 'endPerformanceDate', 'equipmentClass', 'fax', 'file', 'fileName', 'formula',
  'further', 'identification', 'identifications', 'inValidityRange', 'influenceCondition', 'influenceConditions',
  'installedSoftware', 'installedSoftwares', 'issueDate', 'issuer', 'item', 'itemQuantities', 'itemQuantity', 'items', 'latex', 'link',
  'linkedReport', 'list', 'location', 'mainSigner', 'mandatoryLangCodeISO639_1', 'manufacturer', 'mathml', 'measurementMetaData',
  'measurementResult', 'measurementResults', 'measuringEquipment', 'measuringEquipmentQuantities',
  'measuringEquipmentQuantity', 'measuringEquipments', 'metaData', 'mimeType', 'model', 'name', 'namespace', 'noQuantity',
  'nonSIDefinition', 'nonSIUnit', 'norm', 'owner', 'performanceLocation', 'period', 'person', 'phone', 'positionCoordinate1',
  'positionCoordinate2', 'positionCoordinate3', 'positionCoordinateSystem', 'positionCoordinates', 'postCode', 'postOfficeBox',
  'previousReport', 'procedure', 'quantity', 'receiptDate', 'refTypeDefinition', 'refTypeDefinitions', 'reference', 'referral',
  'referralID', 'relativeUncertainty', 'relativeUncertaintySingle', 'relativeUncertaintyXmlList', 'release',
  'replacedUniqueIdentifier', 'reportAmendedSubstituted', 'respAuthority', 'respPerson', 'respPersons', 'result', 'results', 'role',
  'software', 'state', 'statement', 'statements', 'status', 'street', 'streetNo', 'subItems', 'text', 'traceable', 'type', 'typeOfChange',
  'uniqueIdentifier', 'usedLangCodeISO639_1', 'usedMethod', 'usedMethodQuantities', 'usedMethodQuantity', 'usedMethods',
  'usedSoftware', 'valid', 'validXMLList', 'value', 'xml',]);

/** The element names of the D-SI namespace (`https://ptb.de/si`), version 2.1.0; another name is converted with a warning. */
export const SI_ELEMENT_NAMES: ReadonlySet<string> = new Set([
  'column', 'complex', 'complexList', 'constant', 'covariance', 'covarianceMatrix', 'coverageFactor', 'coverageFactorXMLList',
  'coverageInterval', 'coverageIntervalXMLList', 'coverageProbability', 'coverageProbabilityXMLList', 'dateTime',
  'dateTimeXMLList', 'distribution', 'distributionXMLList', 'ellipsoidalRegion', 'ellipsoidalRegionXMLList', 'expandedUnc',
  'expandedUncXMLList', 'hybrid', 'individualElement', 'intervalMax', 'intervalMaxXMLList', 'intervalMin', 'intervalMinXMLList',
  'label', 'labelXMLList', 'list', 'listBivariateUnc', 'listUnit', 'listUnitPhase', 'listUnivariateUnc', 'real', 'realList',
  'realListXMLList', 'rectangularRegion', 'rectangularRegionXMLList', 'standardUnc', 'standardUncXMLList', 'uncertainty',
  'uncertaintyXMLList', 'unit', 'unitPhase', 'unitXMLList', 'value', 'valueImag', 'valueMagnitude', 'valuePhase', 'valueReal',
  'valueXMLList',]);
