/**
 * `platform/operation-one-tag`: exactly one tag (CONVENTIONS §3). The built-in
 * `operation-singular-tag` only refuses two or more, so an operation without tags passed it.
 */
function operationOneTag() {
  return {
    Operation(operation, { report, location }) {
      const count = Array.isArray(operation.tags) ? operation.tags.length : 0;
      if (count === 1) return;
      report({
        message: `Operation must have exactly one tag (it has ${count}): the docs, the stubs' handler files and the clients group by it.`,
        location: count === 0 ? location.key() : location.child(['tags']).key(),
      });
    },
  };
}

module.exports = operationOneTag;
