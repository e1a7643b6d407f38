/**
 * `platform/operation-success-response`: every operation documents how it succeeds, with a 2xx or a
 * 3xx. The built-in `operation-2xx-response` refuses an operation whose only success is a redirect
 * (an OAuth consent decision answers 302) unless it adds a vague `default`.
 */
const { isSuccessStatus } = require('./support.cjs');

function operationSuccessResponse() {
  return {
    Operation: {
      Responses(responses, { report, location }) {
        if (Object.keys(responses ?? {}).some(isSuccessStatus)) return;
        report({ message: 'Operation must document a success: a 2xx or 3xx response.', location: location.key() });
      },
    },
  };
}

module.exports = operationSuccessResponse;
