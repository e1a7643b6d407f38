/**
 * Spectral's `oas3-operation-security-defined`, as OpenAPI 3.1 reads a security requirement: every
 * scheme it names is declared, and for an OAuth 2.0 scheme every scope it lists is one of the
 * scheme's flows' scopes. For other schemes 3.1 lets the list name roles (§4.8.30), which the
 * built-in rule, written for 3.0, refused (reach's bearer scopes).
 */
export default function securityRequirementDeclared(requirement, _options, context) {
  if (requirement === null || typeof requirement !== 'object') return [];
  const schemes = context.document.data?.components?.securitySchemes ?? {};
  const problems = [];
  for (const [name, scopes] of Object.entries(requirement)) {
    const scheme = schemes[name];
    if (!scheme) {
      problems.push({ message: `"${name}" is not a security scheme of components.securitySchemes.`, path: [...context.path, name] });
      continue;
    }
    if (scheme.type !== 'oauth2' || !Array.isArray(scopes)) continue;
    const declared = new Set(Object.values(scheme.flows ?? {}).flatMap((flow) => Object.keys(flow?.scopes ?? {})));
    scopes.forEach((scope, index) => {
      if (!declared.has(scope)) problems.push({ message: `"${scope}" must be listed among the scopes of "${name}"'s flows.`, path: [...context.path, name, index] });
    });
  }
  return problems;
}
