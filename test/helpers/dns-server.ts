import { createUDPServer, Packet } from 'dns2';

/** name (lower case, no trailing dot) → addresses; IPv4 answer A queries, IPv6 answer AAAA. */
export type Zone = Record<string, string[]>;

export interface TestDnsServer {
  /** `127.0.0.1:port`, the form STUB_DNS_SERVER takes. */
  address: string;
  /** Names asked, in order, so a test can tell the server answered and not a shortcut. */
  queries: string[];
  close(): Promise<void>;
}

/** An authoritative UDP DNS server on loopback with an ephemeral port; unknown names get NXDOMAIN. */
export async function startDnsServer(zone: Zone): Promise<TestDnsServer> {
  const queries: string[] = [];
  const server = createUDPServer((request, send) => {
    const response = Packet.createResponseFromRequest(request);
    for (const question of request.questions) {
      const name = question.name.toLowerCase().replace(/\.$/, '');
      queries.push(name);
      const addresses = zone[name];
      if (!addresses) {
        response.header.rcode = 3; // NXDOMAIN
        continue;
      }
      const wantV6 = question.type === Packet.TYPE.AAAA;
      for (const address of addresses.filter((a) => a.includes(':') === wantV6)) {
        response.answers.push(Packet.createResourceFromQuestion(question, { ttl: 60, address }));
      }
    }
    void send(response);
  });
  await server.listen(0, '127.0.0.1');
  const { port } = server.address();
  return {
    address: `127.0.0.1:${port}`,
    queries,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
