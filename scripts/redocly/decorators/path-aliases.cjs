/**
 * `platform/path-aliases`: a document declares once, at its root, that the paths under one prefix are
 * also served under another, and this decorator writes the alias path items into the bundle; the
 * hand-written source keeps one file per path (DECISIONS P-2: every mail `/v1/...` operation is also
 * `/api/v1/...`).
 *
 * ```yaml
 * x-path-aliases:
 *   - of: /v1/            # every path starting so
 *     as: /api/v1/        # is also this path
 *     operationIdSuffix: ViaApiAlias
 *     operationIds:       # optional: an alias operationId already published under another name
 *       revokeApiKey: revokeApiKeyFromDashboard
 * ```
 *
 * Why a bundle decorator, and not alias files generated into `paths/` (58 files to keep from
 * drifting) or a preprocessor (which the lint runs too): the lint reads what designers edit, so a
 * problem in `paths/v1_send.yaml` is reported once, at that file, not again at a copy, and linting
 * mail does not take half as long again for copies of what it already checked; the bundle, the one
 * input of every later tool (types, client, docs, mock, stubs), has the aliases, in `npm run build`
 * and in plain `npx redocly bundle <slug>` alike. It runs when the bundler has inlined every path
 * item (`Root.leave`), so an alias is a deep copy of its twin whose references are the bundle's own
 * `#/components/...`, with, per operation:
 * - `operationId` the twin's plus the suffix (or the one `operationIds` names), so ids stay unique
 *   (a clash is an error) and the generated types and client name both;
 * - `x-alias-of`: the twin's operationId, so a stub serves it with the twin's handler and a tool that
 *   counts operations can tell the copy from the original;
 * - the twin's `x-rate-limit` with its `bucket` made explicit, so both paths draw on one window;
 * - summary and description saying which route it is the same as.
 * Everything else (parameters, body, security, responses, examples, tags, `x-provisional`) is the
 * twin's. A declared alias path also written by hand is an error: the alias is declared once.
 */
function pathAliases() {
  const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
  const operationsOf = (item) => methods.map((method) => [method, item?.[method]]).filter(([, operation]) => operation && typeof operation === 'object');
  return {
    Root: {
      leave(root, ctx) {
        const declarations = root['x-path-aliases'];
        if (declarations === undefined) return;
        const fail = (message) => ctx.report({ message, location: ctx.location.child(['x-path-aliases']) });
        if (!Array.isArray(declarations)) return fail('`x-path-aliases` must be a list of `{of, as, operationIdSuffix, operationIds?}`.');
        const paths = root.paths;
        if (!paths || typeof paths !== 'object') return;
        const ids = new Set(Object.values(paths).flatMap((item) => operationsOf(item).map(([, operation]) => operation.operationId)));
        const aliasesOf = new Map();
        const made = new Set();
        for (const declaration of declarations) {
          const { of: from, as: to, operationIdSuffix: suffix, operationIds: named = {} } = declaration ?? {};
          if (typeof from !== 'string' || typeof to !== 'string' || !from.startsWith('/') || !to.startsWith('/') || typeof suffix !== 'string' || suffix === '') {
            fail('Each `x-path-aliases` entry needs `of` and `as` (path prefixes starting with `/`) and a non-empty `operationIdSuffix`.');
            continue;
          }
          for (const original of Object.keys(paths)) {
            if (!original.startsWith(from)) continue;
            const alias = to + original.slice(from.length);
            if (alias in paths) {
              fail(`${alias} is written by hand and declared as an alias of ${original}: declare it once (remove the one in \`paths\`).`);
              continue;
            }
            if (made.has(alias)) {
              fail(`${alias} is declared as an alias twice (of ${original} and another path).`);
              continue;
            }
            const item = structuredClone(paths[original]);
            if (typeof item?.$ref === 'string') {
              fail(`${original} is a reference (${item.$ref}) the bundle keeps: an alias is written from an inline path item.`);
              continue;
            }
            for (const [method, operation] of operationsOf(item)) {
              if (typeof operation.operationId !== 'string') continue;
              const twin = operation.operationId;
              const id = typeof named[twin] === 'string' ? named[twin] : `${twin}${suffix}`;
              if (ids.has(id)) fail(`${method.toUpperCase()} ${alias}: operationId ${id} is taken; name the alias in \`operationIds\`.`);
              ids.add(id);
              operation.operationId = id;
              operation['x-alias-of'] = twin;
              if (typeof operation.summary === 'string') operation.summary = `${operation.summary} (${to} alias)`;
              operation.description = `\`${method.toUpperCase()} ${alias}\` is the same operation as \`${method.toUpperCase()} ${original}\` (\`${twin}\`): the same parameters, body, security, responses and rate-limit window.\n\n${operation.description ?? ''}`.trimEnd();
              const limit = operation['x-rate-limit'];
              if (limit && typeof limit === 'object' && limit.bucket === undefined) operation['x-rate-limit'] = { ...limit, bucket: twin };
            }
            made.add(alias);
            aliasesOf.set(original, [...(aliasesOf.get(original) ?? []), [alias, item]]);
          }
        }
        // Each alias right after its twin, so the bundle and the docs list them side by side.
        const entries = Object.entries(paths).flatMap((entry) => [entry, ...(aliasesOf.get(entry[0]) ?? [])]);
        for (const key of Object.keys(paths)) delete paths[key];
        for (const [key, value] of entries) paths[key] = value;
      },
    },
  };
}

module.exports = pathAliases;
