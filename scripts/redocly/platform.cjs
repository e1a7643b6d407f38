/**
 * The platform's Redocly plugin: one file per rule, decorator and preprocessor, as Redocly lays out
 * its own (each file says what it checks and why).
 *
 * - Preprocessor `platform/strip-schema-ids` (preprocessors/strip-schema-ids.cjs): lint sees the
 *   schemas without the `$id`s the bundle drops.
 * - Decorator `platform/path-aliases` (decorators/path-aliases.cjs): a root `x-path-aliases`
 *   declaration serves every path under one prefix again under another in the bundle (DECISIONS P-2).
 * - Rule `platform/operation-success-response`: a 2xx or a 3xx.
 * - The house rules of CONVENTIONS §3, so `npm run build` reports them at the file and line to fix:
 *   `platform/operation-one-tag`, `platform/operation-error-statuses`, `platform/operation-examples`,
 *   `platform/error-named-examples` (rules/<name>.cjs; their tests are test/toolkit/lint-rules/).
 * - Config `platform/imported` (configs/imported.cjs): the profile of a document the platform did
 *   not write (DECISIONS I-1).
 *
 * Shared parts (components/responses, …) are reached through `$ref`s; a problem inside one is
 * reported once, at the shared file, because that is where it is fixed.
 */
const { importedProfile, validityRules } = require('./configs/imported.cjs');

module.exports = function platformPlugin() {
  return {
    id: 'platform',
    configs: { imported: importedProfile },
    decorators: {
      oas3: {
        'path-aliases': require('./decorators/path-aliases.cjs'),
      },
    },
    preprocessors: {
      oas3: {
        'strip-schema-ids': require('./preprocessors/strip-schema-ids.cjs'),
      },
    },
    rules: {
      oas3: {
        'operation-success-response': require('./rules/operation-success-response.cjs'),
        'operation-one-tag': require('./rules/operation-one-tag.cjs'),
        'operation-error-statuses': require('./rules/operation-error-statuses.cjs'),
        'operation-examples': require('./rules/operation-examples.cjs'),
        'error-named-examples': require('./rules/error-named-examples.cjs'),
      },
    },
  };
};

/** The rules whose errors mean a document is not valid OpenAPI (the build writes nothing for it). */
module.exports.validityRules = validityRules;
