/**
 * `extends: [platform/imported]` on an API in redocly.yaml: the profile of a document the platform
 * did not write (DECISIONS I-1), which `npm run add-service` sets. What breaks OpenAPI validity, or
 * every tool after the lint, is an error: the document's structure, unresolved references, duplicate
 * operationIds or parameters, undeclared path parameters or server variables, identical paths,
 * component names the specification forbids, an example with both `value` and `externalValue`.
 * Every other finding of the recommended rules and of the house rules' built-in part is a warning,
 * and the platform's own rules (CONVENTIONS §3) are off: they are the profile of its own services.
 * An API's own `rules` still override any of these, as Redocly documents. The build, too, tells a
 * document that is not valid (nothing is written) from one that only breaks style or house rules
 * (built, so `npm run dev` serves it, and reported).
 */
const validityRules = [
  'struct',
  'no-unresolved-refs',
  'no-identical-paths',
  'operation-operationId-unique',
  'operation-parameters-unique',
  'path-parameters-defined',
  'path-declaration-must-exist',
  'no-undefined-server-variable',
  'spec-components-invalid-map-name',
  'no-example-value-and-externalValue',
];

const importedProfile = {
  rules: {
    ...Object.fromEntries(validityRules.map((rule) => [rule, 'error'])),
    ...Object.fromEntries(
      [
        'operation-summary', 'operation-description', 'operation-operationId', 'operation-operationId-url-safe', 'operation-4xx-response',
        'operation-2xx-response', 'tag-description', 'security-defined', 'no-empty-servers', 'no-path-trailing-slash', 'no-server-trailing-slash',
        'path-not-include-query', 'no-enum-type-mismatch', 'no-schema-type-mismatch', 'no-server-variables-empty-enum', 'nullable-type-sibling',
        'no-invalid-media-type-examples', 'no-invalid-parameter-examples', 'no-invalid-schema-examples',
      ].map((rule) => [rule, 'warn']),
    ),
    ...Object.fromEntries(
      ['operation-success-response', 'operation-one-tag', 'operation-error-statuses', 'operation-examples', 'error-named-examples'].map((rule) => [`platform/${rule}`, 'off']),
    ),
  },
};

module.exports = { importedProfile, validityRules };
