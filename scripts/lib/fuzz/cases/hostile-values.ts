/** Raw values a server must survive: names that reach object prototypes, path escapes, numbers that are not. */
export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty'];
export const TRAVERSALS = [
  '..%2F..%2Fetc%2Fpasswd',
  '..%2f..%2f..%2f..%2fwindows%2fwin.ini',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '..%5C..%5Cetc%5Cpasswd',
  '%252e%252e%252f',
  '..',
  '%2e%2e',
  '..%00',
  '%00',
  '%C0%AE%C0%AE%2F',
  '%E0%A4%A', // truncated UTF-8: decodeURIComponent throws
  '%ZZ',
  '%',
  'a'.repeat(3000),
];
export const WRONG_PARAM_VALUES = ['abc', '', '1.5', 'true', 'null', '[object Object]', '{}', '-', '0x1F', '1,2', 'not-a-uuid-0000'];
export const NON_FINITE = ['Infinity', '-Infinity', '1e309', '-1e309', 'NaN'];
