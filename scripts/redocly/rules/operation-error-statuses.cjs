/**
 * `platform/operation-error-statuses` (CONVENTIONS §3): a secured operation declares 401, one that
 * takes input 400 or 422, a rate-limited one (`x-rate-limit`) 429 with `Retry-After`; every 4xx and
 * 5xx has an error body with a schema. A shared response is blamed once, in its own file.
 */
const { isErrorStatus, follow, entriesOf, reportOnce } = require('./support.cjs');

function operationErrorStatuses() {
  let rootSecurity;
  const once = reportOnce();
  return {
    Root: {
      enter(root) {
        rootSecurity = root.security;
      },
    },
    Paths: {
      PathItem: {
        Operation(operation, { report, location, resolve, parent }) {
          const responsesAt = location.child(['responses']);
          const responses = Object.fromEntries(entriesOf(resolve, operation.responses, responsesAt).map(([status, node, at]) => [status, { node, at }]));
          const statuses = Object.keys(responses);
          const missing = (message) => report({ message, location: operation.responses ? responsesAt.key() : location.key() });

          const security = operation.security ?? rootSecurity;
          if (Array.isArray(security) && security.some((requirement) => Object.keys(requirement ?? {}).length > 0) && !statuses.includes('401')) {
            missing('A secured operation must declare 401 (an open one says `security: []`).');
          }
          const parameterCount = (parent?.parameters?.length ?? 0) + (operation.parameters?.length ?? 0);
          if ((parameterCount > 0 || operation.requestBody) && !statuses.includes('400') && !statuses.includes('422')) {
            missing('An operation that takes input (parameters or a body) must declare 400 or 422.');
          }
          if (operation['x-rate-limit']) {
            const tooMany = responses['429'];
            if (!tooMany) missing('A rate-limited operation (`x-rate-limit`) must declare 429.');
            else if (!tooMany.node?.headers?.['Retry-After']) {
              const at = tooMany.node?.headers ? tooMany.at.child(['headers']) : tooMany.at;
              once(report, at.key(), 'The 429 of a rate-limited operation must declare the `Retry-After` header.');
            }
          }
          for (const [status, { node: response, at }] of Object.entries(responses)) {
            if (!isErrorStatus(status) || !response) continue;
            if (!response.content) {
              once(report, at.key(), `${status} must have an error body (\`content\` with the service's error schema).`);
              continue;
            }
            for (const [mediaType, media, mediaAt] of entriesOf(resolve, response.content, at.child(['content']))) {
              if (!follow(resolve, media?.schema, mediaAt.child(['schema'])).node) {
                once(report, mediaAt.key(), `${status} ${mediaType} must have a schema.`);
              }
            }
          }
        },
      },
    },
  };
}

module.exports = operationErrorStatuses;
