/**
 * `platform/strip-schema-ids`: schemas from schemas/ carry `$id` and `$schema` so they stand alone,
 * but inside an OpenAPI document a 2020-12 `$id` rebases references: the example rules' validator
 * would resolve `"$ref": "Other.json"` against the web address in `$id`, and see one `$id` twice when
 * a model is reached along two paths. The bundle drops them (scripts/steps/bundle.ts); this drops
 * them before linting, so lint sees what the bundle holds.
 */
function stripSchemaIds() {
  return {
    Schema: {
      enter(schema) {
        delete schema.$id;
        delete schema.$schema;
      },
    },
  };
}

module.exports = stripSchemaIds;
