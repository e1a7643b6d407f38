/**
 * `platform/error-named-examples` (CONVENTIONS §3): every media type of every declared 4xx and 5xx
 * has a named example (`examples: {name: {value}}`), so the mock answers `Prefer: code=NNN` and
 * `Prefer: example=name` with a body of that status instead of inventing one.
 */
const { isErrorStatus, entriesOf, reportOnce } = require('./support.cjs');

function errorNamedExamples() {
  const once = reportOnce();
  return {
    Paths: {
      PathItem: {
        Operation(operation, { report, location, resolve }) {
          for (const [status, response, at] of entriesOf(resolve, operation.responses, location.child(['responses']))) {
            if (!isErrorStatus(status) || !response) continue;
            for (const [mediaType, media, mediaAt] of entriesOf(resolve, response.content, at.child(['content']))) {
              if (!media) continue;
              const named = entriesOf(resolve, media.examples, mediaAt.child(['examples'])).filter(([, example]) => example && 'value' in example);
              if (named.length > 0) continue;
              if ('example' in media) {
                once(report, mediaAt.child(['example']).key(), `${status} ${mediaType} has only a bare \`example\`: put it under \`examples: {<name>: {value}}\` so the mock answers \`Prefer: example=<name>\`.`);
              } else {
                once(report, mediaAt.key(), `${status} ${mediaType} must have a named example (\`examples: {<name>: {value}}\`) for the mock's \`Prefer: code=${status}\`.`);
              }
            }
          }
        },
      },
    },
  };
}

module.exports = errorNamedExamples;
