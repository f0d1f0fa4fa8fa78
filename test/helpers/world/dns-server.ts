/**
 * The test world's DNS server (dns2, on UDP on 127.0.0.1; its answers are small): answers for the zone it is given
 * (A, AAAA, CNAME chains, MX, TXT), NXDOMAIN for every other name, and counts what it was asked,
 * so that a test can show a lookup reached it. The service is pointed at it with
 * WEBPERF_DNS_SERVERS, the one resolver setting every lookup of the service goes through.
 */
import dns2 from 'dns2';

const { Packet } = dns2;

export interface ZoneRecords {
  A?: string[];
  AAAA?: string[];
  CNAME?: string;
  MX?: { exchange: string; priority: number }[];
  /** Each record's strings (one TXT record may hold several). */
  TXT?: string[][];
}

export interface DnsServer {
  /** `127.0.0.1:<port>`, as WEBPERF_DNS_SERVERS takes it. */
  address: string;
  /** The names and types asked, in order (`kommun.test A`). */
  asked: string[];
  close(): Promise<void>;
}

const TTL = 60;
const norm = (name: string) => name.toLowerCase().replace(/\.$/, '');

export async function startDnsServer(zone: Map<string, ZoneRecords>): Promise<DnsServer> {
  const asked: string[] = [];
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      response.header.aa = 1;
      const [question] = request.questions;
      if (!question) return send(response);
      const type = question.type;
      asked.push(`${norm(question.name)} ${Packet.TYPE_NAME[type] ?? type}`);
      let name = norm(question.name);
      let records = zone.get(name);
      if (!records) {
        response.header.rcode = 3; // NXDOMAIN
        return send(response);
      }
      // A CNAME stands for the whole name: answer it, then the target's records (a recursive
      // resolver's answer), at most a few hops.
      for (let hop = 0; records?.CNAME && type !== Packet.TYPE.CNAME && hop < 8; hop++) {
        response.answers.push({ name, type: Packet.TYPE.CNAME, class: Packet.CLASS.IN, ttl: TTL, domain: records.CNAME } as any);
        name = norm(records.CNAME);
        records = zone.get(name);
      }
      if (!records) return send(response);
      const add = (record: Record<string, unknown>) => response.answers.push({ name, class: Packet.CLASS.IN, ttl: TTL, ...record } as any);
      if (type === Packet.TYPE.A) for (const address of records.A ?? []) add({ type, address });
      else if (type === Packet.TYPE.AAAA) for (const address of records.AAAA ?? []) add({ type, address });
      else if (type === Packet.TYPE.CNAME && records.CNAME) add({ type, domain: records.CNAME });
      else if (type === Packet.TYPE.MX) for (const mx of records.MX ?? []) add({ type, exchange: mx.exchange, priority: mx.priority });
      else if (type === Packet.TYPE.TXT) for (const data of records.TXT ?? []) add({ type, data });
      return send(response);
    },
  });
  // An answer that cannot be sent (a client gone) is no failure of the test.
  server.on('error', () => {});
  await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const port = server.addresses().udp!.port;
  return {
    address: `127.0.0.1:${port}`,
    asked,
    close: () => server.close(),
  };
}
