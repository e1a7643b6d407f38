import { domainToASCII } from 'node:url';
import validator from 'validator';

/** An address taken apart; `asciiDomain` is what DNS and the domain lists are asked with. */
export type ParsedAddress =
  | { valid: true; local: string; domain: string; asciiDomain: string }
  | { valid: false; domain: string };

/**
 * The syntax profile real mailbox providers apply (RFC 5321 §4.5.3.1, RFC 5322 dot-atoms):
 * - no quoted local parts (`"a b"@x`): legal in RFC 5322, refused by every major provider's sign-up;
 * - no IP-literal domains (`a@[192.0.2.1]`): mail to an address without a domain is not deliverable
 *   through MX and nobody registers one;
 * - UTF-8 local parts accepted (RFC 6531 SMTPUTF8, served by Gmail and Outlook);
 * - internationalized domains accepted, checked in their ASCII (punycode) form;
 * - no display names, no surrounding spaces, a top-level domain required.
 */
const profile = {
  allow_display_name: false,
  allow_utf8_local_part: true,
  allow_ip_domain: false,
  allow_underscores: false,
  require_tld: true,
  blacklisted_chars: '"',
  // Gmail's own user-name rules (6 to 30 characters) are a provider's sign-up policy, not syntax.
  domain_specific_validation: false,
  ignore_max_length: false,
} as const;

/** RFC 5321 §4.5.3.1: a path holds at most 256 octets with its angle brackets, so 254 for the address. */
const maxAddressOctets = 254;
const maxDomainOctets = 253;

export function parseAddress(raw: string): ParsedAddress {
  const at = raw.lastIndexOf('@');
  if (at < 0) return { valid: false, domain: '' };
  const local = raw.slice(0, at);
  const domain = raw.slice(at + 1).toLowerCase();
  const asciiDomain = domain.startsWith('[') ? '' : domainToASCII(domain);
  if (!asciiDomain || asciiDomain.length > maxDomainOctets) return { valid: false, domain };
  const address = `${local}@${asciiDomain}`;
  if (Buffer.byteLength(address, 'utf8') > maxAddressOctets || !validator.isEmail(address, profile)) return { valid: false, domain };
  return { valid: true, local, domain, asciiDomain };
}
