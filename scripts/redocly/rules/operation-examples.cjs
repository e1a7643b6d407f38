/**
 * `platform/operation-examples` (CONVENTIONS §3): every request body media type, and every media type
 * of the main (lowest) success response, has an example, so the mock and the docs show something real.
 */
const { isSuccessStatus, follow, entriesOf, reportOnce, hasExample } = require('./support.cjs');

function operationExamples() {
  const once = reportOnce();
  const requestExamples = (operation, { report, location, resolve }) => {
    const body = follow(resolve, operation.requestBody, location.child(['requestBody']));
    for (const [mediaType, media, at] of entriesOf(resolve, body.node?.content, body.location.child(['content']))) {
      if (media && !hasExample(resolve, media, at)) once(report, at.key(), `Request body ${mediaType} must have an example.`);
    }
  };
  return {
    Paths: {
      PathItem: {
        Operation(operation, ctx) {
          requestExamples(operation, ctx);
          const { report, location, resolve } = ctx;
          const responses = entriesOf(resolve, operation.responses, location.child(['responses']));
          // Object keys that look like integers come out in numeric order: the lowest success is the main one.
          const main = responses.find(([status]) => isSuccessStatus(status));
          if (!main || !main[1]) return;
          const [status, response, at] = main;
          for (const [mediaType, media, mediaAt] of entriesOf(resolve, response.content, at.child(['content']))) {
            if (media && !hasExample(resolve, media, mediaAt)) once(report, mediaAt.key(), `${status} ${mediaType} must have an example.`);
          }
        },
      },
    },
    WebhooksMap: {
      PathItem: {
        Operation: requestExamples,
      },
    },
  };
}

module.exports = operationExamples;
