/**
 * The document classes of VDI 2770 Blatt 1:2020 ("Betrieb verfahrenstechnischer Anlagen – Mindestanforderungen an
 * digitale Herstellerinformationen für die Prozessindustrie – Grundlagen"), section 8 / annex: twelve classes in
 * four groups, as the IDTA submodel template "Handover Documentation" (IDTA 02004, classification system
 * `VDI2770:2020`) lists them by ClassId. The platform spec requires a file's `classification` to be one of these ids.
 *
 * Checked against the tables of IDTA 02004 (Handover Documentation 1.2 and 2.0, where each class also has an
 * ECLASS semanticId, 0173-1#07-ABU484#003 for 01-01 to 0173-1#07-ABU495#003 for 04-01) and the class list of the
 * AASX Package Explorer: the same twelve ids and names. The VDI guideline itself (sold by Beuth) was not read.
 */
export const VDI_2770_CLASSES: Readonly<Record<string, string>> = {
  '01-01': 'Identification',
  '02-01': 'Technical specification',
  '02-02': 'Drawings, plans',
  '02-03': 'Assemblies',
  '02-04': 'Certificates, declarations',
  '03-01': 'Commissioning, de-commissioning',
  '03-02': 'Operation',
  '03-03': 'General safety',
  '03-04': 'Inspection, maintenance, testing',
  '03-05': 'Repair',
  '03-06': 'Spare parts',
  '04-01': 'Contract documents',
};

export const isVdi2770Class = (value: string): boolean => Object.hasOwn(VDI_2770_CLASSES, value);
