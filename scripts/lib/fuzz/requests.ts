/**
 * The request generator of one HTTP service: about half valid requests built from the contract
 * (parameters, bodies and credentials from their schemas), half bad input of every kind the
 * framework must survive. Each case says what a correct server does with it (`expect`), so the
 * oracle can tell "refused as it should" from "accepted garbage". The pieces of a request are made
 * in request-kit.ts; each family of bad input is one module of cases/.
 */
import fc from 'fast-check';
import { bodyRequests } from './cases/bodies.js';
import { credentialRequests } from './cases/credentials.js';
import { parameterRequests } from './cases/parameters.js';
import { pathsAndMethodsRequests } from './cases/paths-and-methods.js';
import { rawQueryAndHeadersRequests } from './cases/raw-query-and-headers.js';
import { stringRequests } from './cases/strings.js';
import { validRequests } from './cases/valid.js';
import type { ServiceModel } from './contract-model.js';
import type { LiveIds } from './live-ids.js';
import { createRequestKit } from './request-kit.js';
import type { FuzzRequest } from './wire.js';

export function httpRequestArbitrary(model: ServiceModel, liveIds?: LiveIds): fc.Arbitrary<FuzzRequest> {
  const kit = createRequestKit(model, liveIds);
  const { valid } = validRequests(kit);
  const parameters = parameterRequests(kit);
  const bodies = bodyRequests(kit);
  const queryAndHeaders = rawQueryAndHeadersRequests(kit);
  const strings = stringRequests(kit);
  const paths = pathsAndMethodsRequests(kit);
  const credentials = credentialRequests(kit);

  // Each family's share of the bad half.
  const bad: Array<[fc.Arbitrary<FuzzRequest> | undefined, number]> = [
    [parameters.wrongType, 4],
    [parameters.nonFinite, 4],
    [parameters.outOfRange, 3],
    [parameters.missingRequired, 2],
    [parameters.oversizedParam, 2],
    [parameters.repeatedParam, 1],
    [parameters.unknownQuery, 3],
    [parameters.prototypeQuery, 4],
    [bodies.bodyMutation, 9],
    [bodies.oversizedBody, 1],
    [bodies.deepBody, 1],
    [bodies.malformed, 4],
    [bodies.oddJson, 2],
    [bodies.wrongContentType, 5],
    [bodies.manyFields, 2],
    [bodies.prototypeBody, 4],
    [bodies.encodings, 2],
    [bodies.bodyWithoutSchema, 1],
    [queryAndHeaders.rawQuery, 2],
    [queryAndHeaders.manyQuery, 1],
    [queryAndHeaders.oddHeaders, 2],
    [queryAndHeaders.conditional, 2],
    [strings.nasty, 4],
    [paths.traversal, 3],
    [paths.unknownMethod, 3],
    [paths.head, 2],
    [paths.headNoGet, 1],
    [paths.options, 2],
    [paths.unknownPath, 3],
    [credentials.badCredentials, 7],
  ];
  const present = bad.filter((b): b is [fc.Arbitrary<FuzzRequest>, number] => b[0] !== undefined);
  const badWeight = present.reduce((n, [, w]) => n + w, 0);
  // Roughly half valid, half bad; `valid` first so shrinking a failure heads for a valid request.
  return fc.oneof(
    { arbitrary: valid!, weight: badWeight },
    ...present.map(([arbitrary, weight]) => ({ arbitrary, weight })),
  );
}

