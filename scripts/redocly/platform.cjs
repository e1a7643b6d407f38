/**
 * The platform's Redocly plugin.
 *
 * - Preprocessor `platform/strip-schema-ids`: schemas from schemas/ carry `$id` and `$schema` so they
 *   stand alone, but inside an OpenAPI document a 2020-12 `$id` rebases references: the example
 *   rules' validator would resolve `"$ref": "Other.json"` against the web address in `$id`, and see
 *   one `$id` twice when a model is reached along two paths. The bundle drops them
 *   (scripts/steps/bundle.ts); this drops them before linting, so lint sees what the bundle holds.
 * - Rule `platform/operation-success-response`: every operation documents how it succeeds, with a
 *   2xx or a 3xx. The built-in `operation-2xx-response` refuses an operation whose only success is a
 *   redirect (an OAuth consent decision answers 302) unless it adds a vague `default`.
 */
module.exports = function platformPlugin() {
  return {
    id: 'platform',
    preprocessors: {
      oas3: {
        'strip-schema-ids': () => ({
          Schema: {
            enter(schema) {
              delete schema.$id;
              delete schema.$schema;
            },
          },
        }),
      },
    },
    rules: {
      oas3: {
        'operation-success-response': () => ({
          Operation: {
            Responses(responses, { report, location }) {
              if (Object.keys(responses ?? {}).some((code) => /^[23]([0-9]{2}|XX)$/.test(code))) return;
              report({ message: 'Operation must document a success: a 2xx or 3xx response.', location: location.key() });
            },
          },
        }),
      },
    },
  };
};
