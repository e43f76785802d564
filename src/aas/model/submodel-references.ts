/**
 * A shell's reference to a submodel written as an ExternalReference whose one key is of type Submodel (the
 * Eclipse BaSyx AAS Web UI's "Create Submodel" links the new submodel so): the metamodel wants a ModelReference
 * there (a shell's submodels are model references to submodels), but the meaning is one, the submodel of that id. It is
 * taken as that ModelReference instead of refusing the write, which would leave the new submodel unlinked. Any other
 * reference is left as it is, for the verification to judge. Returns the value with such references rewritten (a
 * copy where anything changes).
 */
export function asSubmodelModelReference(reference: unknown): unknown {
  if (reference === null || typeof reference !== 'object' || Array.isArray(reference)) return reference;
  const ref = reference as Record<string, unknown>;
  const keys = ref.keys;
  if (ref.type !== 'ExternalReference' || !Array.isArray(keys) || keys.length !== 1) return reference;
  const key = keys[0] as Record<string, unknown> | null;
  if (key === null || typeof key !== 'object' || key.type !== 'Submodel' || ref.referredSemanticId !== undefined) return reference;
  return { ...ref, type: 'ModelReference' };
}

/** A shell document with every submodel reference as `asSubmodelModelReference` takes it. */
export function withSubmodelModelReferences(shell: unknown): unknown {
  if (shell === null || typeof shell !== 'object' || Array.isArray(shell)) return shell;
  const submodels = (shell as Record<string, unknown>).submodels;
  if (!Array.isArray(submodels)) return shell;
  const mapped = submodels.map(asSubmodelModelReference);
  return mapped.some((ref, i) => ref !== submodels[i]) ? { ...(shell as Record<string, unknown>), submodels: mapped } : shell;
}

/**
 * Repairs, in place, the shells of an environment read for an import (before it is verified): a submodel reference
 * written as an ExternalReference to a Submodel becomes the ModelReference it means (`asSubmodelModelReference`),
 * with a warning naming where (`name` and the JSON path). So an imported shell reads as what a PUT of it stores, and
 * a GET-then-PUT of it changes nothing.
 */
export function repairSubmodelReferences(environment: unknown, warnings: string[], name: string): void {
  const shells = (environment as { assetAdministrationShells?: unknown } | null)?.assetAdministrationShells;
  if (!Array.isArray(shells)) return;
  shells.forEach((shell, i) => {
    const submodels = (shell as { submodels?: unknown } | null)?.submodels;
    if (!Array.isArray(submodels)) return;
    submodels.forEach((reference, k) => {
      const repaired = asSubmodelModelReference(reference);
      if (repaired === reference) return;
      submodels[k] = repaired;
      warnings.push(`${name} $.assetAdministrationShells[${i}].submodels[${k}]: an ExternalReference to a Submodel; stored as the ModelReference it means`);
    });
  });
}
