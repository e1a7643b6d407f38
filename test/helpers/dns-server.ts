import { createUDPServer, Packet } from 'dns2';
import { afterAll, beforeAll } from 'vitest';
import { createRecordResolver, type RecordResolver } from '../../server-stubs/lib/dns-records.js';

export interface MxAnswer {
  exchange: string;
  priority: number;
}

/** The records of one name. `txt` entries of several strings are sent as one record of several character-strings. */
export interface ZoneRecords {
  addresses?: string[];
  txt?: Array<string | string[]>;
  mx?: MxAnswer[];
  cname?: string[];
  /** Answer SERVFAIL for this name, as a broken authoritative server does. */
  servfail?: boolean;
}

/**
 * name (lower case, no trailing dot) → its records; a bare list is its addresses (IPv4 answer A
 * queries, IPv6 answer AAAA).
 */
export type Zone = Record<string, string[] | ZoneRecords>;

export interface TestDnsServer {
  /** `127.0.0.1:port`, the form STUB_DNS_SERVER takes. */
  address: string;
  /** Names asked, in order, so a test can tell the server answered and not a shortcut. */
  queries: string[];
  close(): Promise<void>;
}

const recordsOf = (entry: string[] | ZoneRecords): ZoneRecords => (Array.isArray(entry) ? { addresses: entry } : entry);

/** An authoritative UDP DNS server on loopback with an ephemeral port; unknown names get NXDOMAIN, known names without the type asked get an empty answer. */
export async function startDnsServer(zone: Zone): Promise<TestDnsServer> {
  const queries: string[] = [];
  const server = createUDPServer((request, send) => {
    const response = Packet.createResponseFromRequest(request);
    for (const question of request.questions) {
      const name = question.name.toLowerCase().replace(/\.$/, '');
      queries.push(name);
      const entry = zone[name];
      if (!entry) {
        response.header.rcode = 3; // NXDOMAIN
        continue;
      }
      const records = recordsOf(entry);
      if (records.servfail) {
        response.header.rcode = 2; // SERVFAIL
        continue;
      }
      const answer = (data: Record<string, unknown>) => response.answers.push(Packet.createResourceFromQuestion(question, { ttl: 60, ...data }));
      switch (question.type) {
        case Packet.TYPE.A:
        case Packet.TYPE.AAAA: {
          const wantV6 = question.type === Packet.TYPE.AAAA;
          for (const address of (records.addresses ?? []).filter((a) => a.includes(':') === wantV6)) answer({ address });
          break;
        }
        case Packet.TYPE.TXT:
          for (const data of records.txt ?? []) answer({ data });
          break;
        case Packet.TYPE.MX:
          for (const mx of records.mx ?? []) answer({ exchange: mx.exchange, priority: mx.priority });
          break;
        case Packet.TYPE.CNAME:
          for (const domain of records.cname ?? []) answer({ domain });
          break;
      }
    }
    // The asker may be gone (a test ending mid-look-up): log it rather than fail the run unhandled.
    send(response).catch((error: unknown) => console.error('test DNS server: answer not sent', error));
  });
  await server.listen(0, '127.0.0.1');
  const { port } = server.address();
  return {
    address: `127.0.0.1:${port}`,
    queries,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The file's DNS server: started before its tests (and before hooks registered after this call), closed after. */
export function dnsServerForTests(zone: Zone): TestDnsServer {
  let current: TestDnsServer | undefined;
  beforeAll(async () => {
    current = await startDnsServer(zone);
  });
  afterAll(() => current?.close());
  return new Proxy({} as TestDnsServer, {
    get: (_target, name) => {
      if (!current) throw new Error('the DNS server is not started yet: use it inside a test or hook');
      return current[name as keyof TestDnsServer];
    },
  });
}

/**
 * A resolver that asks `dns`. Every name a test asks is answered, so the look-up timeout never
 * decides a test: it is long enough that a busy machine (the DNS server shares the test's event
 * loop) cannot reach it.
 */
export function resolverAsking(dns: TestDnsServer): RecordResolver {
  return createRecordResolver({ dnsServer: dns.address, timeoutMs: 10_000 });
}
