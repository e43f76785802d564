/**
 * The data specification an IEC 61360 content implies (AAS Part 3a): what an embedded data specification without
 * its `dataSpecification` reference is repaired with.
 */
export const IEC_61360_DATA_SPECIFICATION = 'https://admin-shell.io/DataSpecificationTemplates/DataSpecificationIEC61360/3/0';

const iec61360Reference = () => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: IEC_61360_DATA_SPECIFICATION }] });

/**
 * Repairs, in place, every embedded data specification of an environment (read from JSON or XML, before it is
 * verified) that lacks its required `dataSpecification` reference while its content is IEC 61360 (the only
 * content kind of the metamodel, so the meaning is unambiguous): it gets the reference that content's type implies,
 * and a warning names where (`name` and the JSON path). Real packages of two tools write them so; the metamodel
 * requires the reference, and without the repair the whole environment could not be read. Iterative.
 */
export function repairDataSpecifications(environment: unknown, warnings: string[], name: string): void {
  const stack: [unknown, string][] = [[environment, '$']];
  while (stack.length) {
    const [value, path] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      value.forEach((item, i) => stack.push([item, `${path}[${i}]`]));
      continue;
    }
    const object = value as Record<string, unknown>;
    const specs = object.embeddedDataSpecifications;
    if (Array.isArray(specs)) {
      specs.forEach((spec, i) => {
        if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) return;
        const embedded = spec as Record<string, unknown>;
        const content = embedded.dataSpecificationContent as Record<string, unknown> | undefined;
        if (embedded.dataSpecification != null || content?.modelType !== 'DataSpecificationIec61360') return;
        embedded.dataSpecification = iec61360Reference();
        warnings.push(
          `${name} ${path}.embeddedDataSpecifications[${i}]: the dataSpecification reference is missing; repaired with ${IEC_61360_DATA_SPECIFICATION}, which its IEC 61360 content implies`,
        );
      });
    }
    for (const [key, inner] of Object.entries(object)) if (inner !== null && typeof inner === 'object') stack.push([inner, `${path}.${key}`]);
  }
}
