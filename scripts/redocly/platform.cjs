/**
 * The platform's Redocly plugin.
 *
 * - Preprocessor `platform/strip-schema-ids`: schemas from schemas/ carry `$id` and `$schema` so they
 *   stand alone, but inside an OpenAPI document a 2020-12 `$id` rebases references: the example
 *   rules' validator would resolve `"$ref": "Other.json"` against the web address in `$id`, and see
 *   one `$id` twice when a model is reached along two paths. The bundle drops them
 *   (scripts/steps/bundle.ts); this drops them before linting, so lint sees what the bundle holds.
 * - Decorator `platform/path-aliases`: a root `x-path-aliases` declaration serves every path under
 *   one prefix again under another in the bundle (mail's `/v1/...` also as `/api/v1/...`, DECISIONS
 *   P-2). See `pathAliases` below.
 * - Rule `platform/operation-success-response`: every operation documents how it succeeds, with a
 *   2xx or a 3xx. The built-in `operation-2xx-response` refuses an operation whose only success is a
 *   redirect (an OAuth consent decision answers 302) unless it adds a vague `default`.
 *
 * The house rules of CONVENTIONS §3, so `npm run build` reports them at the file and line to fix
 * instead of a late vitest failure (test/toolkit/contract-rules.test.ts holds the same rules):
 * - `platform/operation-one-tag`: exactly one tag. The built-in `operation-singular-tag` only refuses
 *   two or more, so an operation without tags passed it.
 * - `platform/operation-error-statuses`: a secured operation declares 401, one that takes input
 *   400 or 422, a rate-limited one (`x-rate-limit`) 429 with `Retry-After`; every 4xx and 5xx has
 *   an error body with a schema.
 * - `platform/operation-examples`: every request body media type, and every media type of the main
 *   (lowest) success response, has an example, so the mock and the docs show something real.
 * - `platform/error-named-examples`: every media type of every declared 4xx and 5xx has a named
 *   example (`examples: {name: {value}}`), so the mock answers `Prefer: code=NNN` and
 *   `Prefer: example=name` with a body of that status instead of inventing one.
 *
 * Shared parts (components/responses, …) are reached through `$ref`s; a problem inside one is
 * reported once, at the shared file, because that is where it is fixed.
 */

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

const isRef = (node) => node !== null && typeof node === 'object' && typeof node.$ref === 'string';
const isErrorStatus = (status) => /^[45]([0-9]{2}|XX)$/.test(status);
const isSuccessStatus = (status) => /^[23]([0-9]{2}|XX)$/.test(status);

/**
 * Follows `$ref`s from `node`, found at `location`, to the node and the location it really lives at.
 * Redocly's `resolve` only knows the file the visitor was entered in, so each hop names its own file.
 */
function follow(resolve, node, location) {
  let current = { node, location };
  for (let hops = 0; isRef(current.node) && hops < 20; hops++) {
    const next = resolve(current.node, current.location.source.absoluteRef);
    if (next.node === undefined || !next.location) return { node: undefined, location: current.location };
    current = { node: next.node, location: next.location };
  }
  return current;
}

/** The entries of a map node with each value's `$ref` followed: `[key, node, location]`. */
function entriesOf(resolve, map, location) {
  if (!map || typeof map !== 'object') return [];
  return Object.keys(map).map((key) => {
    const { node, location: at } = follow(resolve, map[key], location.child([key]));
    return [key, node, at];
  });
}

/** The same place reached from many operations is reported once: the fix is made once. */
function reportOnce() {
  const seen = new Set();
  return (report, location, message) => {
    const id = `${location.source.absoluteRef}#${location.pointer}`;
    if (seen.has(id)) return;
    seen.add(id);
    report({ message, location });
  };
}

/** The test contract-rules.test.ts applies: a named example with a `value`, an `example`, or a schema's `examples`. */
function hasExample(resolve, media, location) {
  const named = entriesOf(resolve, media.examples, location.child(['examples']));
  if (named.length > 0 && named[0][1] && typeof named[0][1] === 'object' && 'value' in named[0][1]) return true;
  if ('example' in media) return true;
  const schema = follow(resolve, media.schema, location.child(['schema'])).node;
  return Array.isArray(schema?.examples) && schema.examples.length > 0;
}

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

module.exports = function platformPlugin() {
  return {
    id: 'platform',
    configs: { imported: importedProfile },
    decorators: {
      oas3: {
        'path-aliases': pathAliases,
      },
    },
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
        'operation-one-tag': operationOneTag,
        'operation-error-statuses': operationErrorStatuses,
        'operation-examples': operationExamples,
        'error-named-examples': errorNamedExamples,
      },
    },
  };
};

/** The rules whose errors mean a document is not valid OpenAPI (the build writes nothing for it). */
module.exports.validityRules = validityRules;
