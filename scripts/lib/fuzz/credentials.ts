/**
 * The one place that knows how a stub publishes its test credentials. Today that is
 * `service.credentials: Array<{label, scheme, value, valid?}>` (a seed per security scheme of the
 * contract; `valid: false` marks one that must be refused, like a revoked key). The older form,
 * `{label, value: 'Authorization: Bearer seo_test_key'}`, is still understood, so this file is the
 * only one to touch when the structure moves again.
 */
import type { OpenAPI3, SecuritySchemeObject } from 'openapi-typescript';
import { credentialCarrier } from '../credentials.js';
import { deref } from '../../../server-stubs/lib/openapi/document.js';

/** An operation's `security`: alternatives, each naming schemes (all of which must pass). `{}` is anonymous. */
export type SecurityRequirement = Array<Record<string, string[]>>;

/** What a stub publishes, in either form. */
export interface PublishedCredential {
  label: string;
  value: string;
  scheme?: string;
  valid?: boolean;
  tenant?: string;
}

export interface CredentialVariant {
  label: string;
  headers: Record<string, string>;
  /** `reject`: a correct stub refuses it (401/403); `any`: it may well be accepted */
  expect: 'reject' | 'any';
}

export interface OperationCredentials {
  /** headers of a credential the operation accepts; undefined when the stub publishes none that fits */
  valid: Record<string, string> | undefined;
  /** query parameters of that credential (an apiKey `in: query`), sent with `valid` */
  validQuery?: Array<[string, string]> | undefined;
  /** the operation also takes anonymous calls (an empty requirement), so no credential is refused outright */
  anonymous: boolean;
  /** missing, malformed, wrong, revoked, other product's and other organization's credentials */
  variants: CredentialVariant[];
  /**
   * The valid headers with each credential swapped for a live one of another tenant (same scheme),
   * when the stub says whose data its seeds see: such a caller must never reach the first one's ids.
   */
  otherTenant?: Record<string, string> | undefined;
}

interface Seed {
  label: string;
  /** the contract's scheme name when the stub says it (structured form) */
  scheme?: string | undefined;
  /** the header that carries it (lower case) and its full value there */
  header: string;
  headerValue: string;
  /** the secret itself: token, cookie value or header value */
  secret: string;
  /** where an apiKey `in: query` travels instead of a header */
  query?: [string, string] | undefined;
  live: boolean;
  tenant?: string | undefined;
}

/** A seed as the client sends it, for a scheme of the contract (as `credentialHeaders` of the stubs does). */
function seedsOf(credentials: ReadonlyArray<PublishedCredential>, document: OpenAPI3 | undefined): Seed[] {
  const schemes = document?.components?.securitySchemes ?? {};
  return credentials.flatMap((c): Seed[] => {
    const live = c.valid !== false && !/revoked|expired|disabled/i.test(c.label);
    const tenant = c.tenant;
    if (c.scheme) {
      if (!document || !deref(document, schemes[c.scheme])) return [];
      // Written as the scheme declares it (Basic, Bearer, an apiKey's header, cookie or query).
      const carrier = credentialCarrier(document, c.scheme, c.value);
      const query = carrier.query[0];
      if (query) return [{ label: c.label, scheme: c.scheme, header: `?${query[0]}`, headerValue: query[1], secret: c.value, live, tenant, query }];
      const [name, headerValue] = Object.entries(carrier.headers)[0] ?? [];
      if (name === undefined || headerValue === undefined) return [];
      return [{ label: c.label, scheme: c.scheme, header: name.toLowerCase(), headerValue, secret: c.value, live, tenant }];
    }
    // Older form: the header line itself.
    const m = /^([A-Za-z0-9-]+):\s*(.+)$/.exec(c.value);
    if (!m) return [];
    const header = m[1]!.toLowerCase();
    const headerValue = m[2]!.trim();
    const secret = header === 'authorization' ? headerValue.replace(/^bearer\s+/i, '') : header === 'cookie' ? headerValue.slice(headerValue.indexOf('=') + 1) : headerValue;
    return [{ label: c.label, header, headerValue, secret, live }];
  });
}

/** The seeds that fit one security scheme of the contract, best first. */
function fitting(seeds: Seed[], name: string, scheme: SecuritySchemeObject | undefined): Seed[] {
  if (!scheme) return [];
  const named = seeds.filter((s) => s.scheme === name);
  if (named.length > 0 || seeds.some((s) => s.scheme)) return named;
  // Older form: guess from the header.
  if (scheme.type === 'apiKey' && scheme.in === 'header') return seeds.filter((s) => s.header === String(scheme.name).toLowerCase());
  if (scheme.type === 'apiKey' && scheme.in === 'cookie') return seeds.filter((s) => s.header === 'cookie' && s.headerValue.startsWith(`${scheme.name}=`));
  return seeds.filter((s) => s.header === 'authorization');
}

/** A placeholder secret (`any-value-until-verification-lands`): any value passes, so a wrong one may too. */
const isPlaceholder = (s: Seed) => /any-value/i.test(s.secret);

/**
 * Valid headers and invalid variants for an operation.
 * `credentials`: what the stub publishes; `document`: its contract; `security`: the operation's
 * requirement (its own `security`, else the document's); `otherProducts`: what the other stubs
 * publish (a key of another product must be refused here).
 */
export function credentialsFor(
  credentials: ReadonlyArray<PublishedCredential>,
  document: OpenAPI3,
  security: SecurityRequirement | undefined,
  otherProducts: ReadonlyArray<PublishedCredential> = [],
): OperationCredentials {
  const requirement: SecurityRequirement = security ?? document.security ?? [];
  const schemes = document.components?.securitySchemes ?? {};
  const seeds = seedsOf(credentials, document);
  const anonymous = requirement.length === 0 || requirement.some((alt) => Object.keys(alt).length === 0);
  const accepted = (s: Seed) => requirement.some((alt) => Object.keys(alt).some((n) => fitting(seeds, n, deref(document, schemes[n])).some((f) => f.secret === s.secret && f.header === s.header)));

  // The first alternative whose every scheme has a live seed.
  let valid: Record<string, string> | undefined;
  let validQuery: Array<[string, string]> = [];
  let chosen: Array<{ name: string; seed: Seed }> = [];
  for (const alternative of requirement) {
    const names = Object.keys(alternative);
    if (names.length === 0) continue;
    const picks = names.map((name) => ({ name, seed: fitting(seeds, name, deref(document, schemes[name])).find((s) => s.live) }));
    if (picks.every((p) => p.seed)) {
      chosen = picks as typeof chosen;
      valid = Object.fromEntries(chosen.filter((p) => !p.seed.query).map((p) => [p.seed.header, p.seed.headerValue]));
      validQuery = chosen.flatMap((p) => (p.seed.query ? [p.seed.query] : []));
      break;
    }
  }
  if (requirement.length === 0 || (anonymous && !valid)) {
    // An open operation still meets garbage credentials: any answer may be right, none may crash.
    const garbage: CredentialVariant[] = [{ label: 'garbage bearer on an open operation', headers: { authorization: 'Bearer wrong_test_key_0000' }, expect: 'any' }];
    for (const s of seeds.filter((seed) => !seed.query).slice(0, 1)) garbage.push({ label: `credential on an open operation: ${s.label}`, headers: { [s.header]: s.headerValue }, expect: 'any' });
    return { valid: valid ?? {}, validQuery, anonymous, variants: garbage };
  }

  const variant = (label: string, headers: Record<string, string>, mayPass = false): CredentialVariant => ({ label, headers, expect: anonymous || mayPass ? 'any' : 'reject' });
  const variants: CredentialVariant[] = [variant('missing', {})];
  const otherSecrets = [...new Set(seedsOf(otherProducts, undefined).map((s) => s.secret).concat(otherProducts.filter((c) => c.scheme).map((c) => c.value)))].filter(
    (secret) => !seeds.some((s) => s.secret === secret),
  );
  for (const { name, seed } of chosen) {
    const siblings = fitting(seeds, name, deref(document, schemes[name])).filter((s) => s.secret !== seed.secret && !s.query);
    if (seed.query) {
      // In the query: only its absence is a variant here (the header variants above do not apply).
    } else if (seed.header === 'authorization' && /^Basic /i.test(seed.headerValue)) {
      variants.push(
        variant('malformed: basic without credentials', { authorization: 'Basic' }),
        variant('malformed: basic, not base64', { authorization: 'Basic %%%' }),
        variant('wrong scheme: bearer', { authorization: `Bearer ${seed.secret}` }),
      );
    } else if (seed.header === 'authorization') {
      variants.push(
        variant('malformed: empty bearer', { authorization: 'Bearer' }),
        variant('malformed: bearer with spaces', { authorization: `Bearer ${seed.secret} extra` }),
        variant('malformed: basic scheme', { authorization: `Basic ${Buffer.from(`${seed.secret}:x`).toString('base64')}` }),
        variant('malformed: token only', { authorization: seed.secret }),
        variant('wrong: unknown key', { authorization: 'Bearer wrong_test_key_0000' }),
        variant('wrong: key with a suffix', { authorization: `Bearer ${seed.secret}x` }),
        // RFC 7235: the scheme name is case-insensitive, so this one should pass.
        variant('lower-case scheme', { authorization: `bearer ${seed.secret}` }, true),
      );
      for (const secret of otherSecrets) variants.push(variant(`another product's key (${secret})`, { authorization: `Bearer ${secret}` }));
    } else if (seed.header === 'cookie') {
      const cookie = seed.headerValue.slice(0, seed.headerValue.indexOf('='));
      variants.push(
        variant('cookie: empty', { cookie: `${cookie}=` }),
        variant('cookie: wrong', { cookie: `${cookie}=sess_wrong_0000` }),
        variant('cookie: malformed encoding', { cookie: `${cookie}=%E0%A4%A` }),
        variant('cookie: prototype keys', { cookie: `__proto__=x; constructor=y; ${cookie}=sess_wrong_0000` }),
        variant('cookie: sent as a bearer', { authorization: `Bearer ${seed.secret}` }),
      );
      for (const secret of otherSecrets) variants.push(variant(`another product's key (${secret})`, { cookie: `${cookie}=${secret}` }));
    } else {
      const placeholder = isPlaceholder(seed);
      variants.push(
        variant(`${seed.header}: empty`, { [seed.header]: '' }),
        variant(`${seed.header}: wrong`, { [seed.header]: 'wrong-secret-0000' }, placeholder),
        variant(`${seed.header}: with a suffix`, { [seed.header]: `${seed.secret}x` }, placeholder),
      );
    }
    for (const sibling of siblings) {
      // A live key of another organization, user or plan authenticates (and then sees only its own data).
      variants.push(variant(`${sibling.live ? 'another organization or plan' : 'revoked'}: ${sibling.label}`, { [sibling.header]: sibling.headerValue }, sibling.live));
    }
  }
  // Seeds of the service's other schemes, on an operation that may not list them.
  const used = new Set(chosen.map((c) => c.seed.header));
  for (const other of seeds.filter((s) => s.live && !s.query && !used.has(s.header)).slice(0, 3)) {
    variants.push(variant(`credential of another scheme: ${other.label}`, { [other.header]: other.headerValue }, accepted(other)));
  }
  return { valid, validQuery, anonymous, variants, otherTenant: otherTenantHeaders(chosen, (name) => fitting(seeds, name, deref(document, schemes[name]))) };
}

/** `valid` with every chosen seed replaced by a live seed of the same scheme and another tenant; undefined if one has none. */
function otherTenantHeaders(chosen: Array<{ name: string; seed: Seed }>, fits: (name: string) => Seed[]): Record<string, string> | undefined {
  if (chosen.length === 0 || chosen.some((c) => c.seed.tenant === undefined)) return undefined;
  const swapped = chosen.map(({ name, seed }) => fits(name).find((s) => s.live && s.tenant !== undefined && s.tenant !== seed.tenant));
  if (swapped.some((s) => !s)) return undefined;
  return Object.fromEntries(swapped.map((s) => [s!.header, s!.headerValue]));
}
