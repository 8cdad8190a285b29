// The RFC 2136 DNS-01 provider against a real authoritative server on loopback (Debian's Knot DNS,
// test/support/dns-server.ts): a TXT value added at _acme-challenge.<name> with a TSIG-signed
// update (the zone found by an SOA look-up, or given) is served once present() returns, a second
// value beside it stays when the first is removed; hmac-sha512 keys work; a wrong secret, an
// unknown key and a change the server's policy does not allow the key are refused in words that say which. Between the
// provider and the server, a relay on loopback shows that an answer without TSIG or with a MAC that
// does not verify is refused, and that a truncated UDP answer is retried over TCP.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { connect, createServer, type Server } from 'node:net';
import type { Rfc2136Config } from '../../src/config/https.ts';
import { createRfc2136Provider, Rfc2136Error } from '../../src/modules/domains/dns01-rfc2136.ts';
import { hasKnot, startDnsServer, type DnsServer, type TestKey } from '../support/dns-server.ts';
import { freePort } from '../support/processes.ts';

const skip = !hasKnot() && !process.env.BERTH_REQUIRE_DOCKER ? 'knotd is not installed (apt-get install knot)' : false;

const config = (server: { host: string; port: number }, key: TestKey, over: Partial<Rfc2136Config> = {}): Rfc2136Config => ({
  host: server.host, port: server.port, keyName: key.name, keySecret: Buffer.from(key.secret, 'base64'), keyAlgorithm: key.algorithm, zone: null, ...over,
});

type Mode = 'relay' | 'unsigned' | 'tampered' | 'truncated';

/** a UDP and TCP relay to the DNS server that answers as `mode` says; counts what went over TCP */
async function startRelay(dns: DnsServer): Promise<{ port: number; mode: Mode; tcpExchanges: number; close(): Promise<void> }> {
  const port = await freePort();
  const state = { port, mode: 'relay' as Mode, tcpExchanges: 0, close: async () => {} };
  const udp: Socket = createSocket('udp4');
  udp.on('message', (request, from) => {
    const reply = (answer: Buffer) => udp.send(answer, from.port, from.address);
    if (state.mode === 'unsigned' || state.mode === 'truncated') {
      // the header alone, as an answer: unsigned (and, for 'truncated', "try TCP")
      const answer = Buffer.from(request.subarray(0, 12));
      answer.writeUInt16BE((request.readUInt16BE(2) | 0x8000 | (state.mode === 'truncated' ? 0x0200 : 0)) & 0xfff0, 2);
      answer.fill(0, 4, 12);
      return reply(answer);
    }
    const upstream = createSocket('udp4');
    upstream.on('message', (answer) => {
      upstream.close();
      if (state.mode === 'tampered') answer[answer.length - 7]! ^= 0x01; // the MAC's last byte (then original id, error, other length)
      reply(answer);
    });
    upstream.send(request, dns.port, dns.host);
  });
  await new Promise<void>((r) => udp.bind(port, '127.0.0.1', () => r()));
  const tcp: Server = createServer((client) => {
    state.tcpExchanges++;
    const upstream = connect({ host: dns.host, port: dns.port });
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((r) => tcp.listen(port, '127.0.0.1', () => r()));
  state.close = async () => {
    udp.close();
    await new Promise((r) => tcp.close(r));
  };
  return state;
}

const refusal = (pattern: RegExp) => (err: unknown) => {
  assert.ok(err instanceof Rfc2136Error, String(err));
  assert.match(err.message, pattern);
  return true;
};

describe('DNS-01 through RFC 2136 dynamic updates signed with TSIG (Knot DNS on loopback)', { skip, timeout: 120_000 }, () => {
  let dns: DnsServer;
  before(async () => { dns = await startDnsServer(); });
  after(async () => { await dns?.close(); });

  test('present() adds the TXT value and returns once it is served; cleanup() removes that value only', async () => {
    const provider = createRfc2136Provider(config(dns, dns.key), { pollMs: 100 });
    await provider.present('*.shop.test', 'first-value');
    assert.deepEqual(await dns.txt('_acme-challenge.shop.test'), ['first-value'], 'served as soon as present() returned');
    // the apex and the wildcard of one order share the record name: two values side by side
    await provider.present('shop.test', 'second-value');
    assert.deepEqual((await dns.txt('_acme-challenge.shop.test')).sort(), ['first-value', 'second-value']);
    await provider.cleanup('*.shop.test', 'first-value');
    assert.deepEqual(await dns.txt('_acme-challenge.shop.test'), ['second-value']);
    await provider.cleanup('shop.test', 'second-value');
    assert.deepEqual(await dns.txt('_acme-challenge.shop.test'), []);
  });

  test('an hmac-sha512 key, with the zone given (ACME_DNS01_RFC2136_ZONE), for a deeper name', async () => {
    const provider = createRfc2136Provider(config(dns, dns.key512, { zone: 'shop.test' }), { pollMs: 100 });
    await provider.present('eu.shop.test', 'deep-value');
    assert.deepEqual(await dns.txt('_acme-challenge.eu.shop.test'), ['deep-value']);
    await provider.cleanup('eu.shop.test', 'deep-value');
    assert.deepEqual(await dns.txt('_acme-challenge.eu.shop.test'), []);
  });

  test('a wrong secret, an unknown key name and a change the key may not make are refused, saying which', async () => {
    const wrongSecret = createRfc2136Provider(config(dns, { ...dns.key, secret: Buffer.alloc(32, 7).toString('base64') }, { zone: 'shop.test' }));
    await assert.rejects(wrongSecret.present('shop.test', 'x'), refusal(/^cannot add TXT _acme-challenge\.shop\.test in zone shop\.test: .*refused the TSIG signature: NOTAUTH\/BADSIG .*secret of key "berth-acme"/));
    const unknownKey = createRfc2136Provider(config(dns, { ...dns.key, name: 'nobody' }, { zone: 'shop.test' }));
    await assert.rejects(unknownKey.present('shop.test', 'x'), refusal(/refused the TSIG signature: NOTAUTH\/BADKEY .*no key "nobody"/));
    const locked = createRfc2136Provider(config(dns, dns.key));
    // Knot answers a key its policy refuses for this change as it answers an unknown key (BADKEY)
    await assert.rejects(locked.present('www.locked.test', 'x'), refusal(/^cannot add TXT _acme-challenge\.www\.locked\.test in zone locked\.test: .*(REFUSED|BADKEY).*policy/));
    const nowhere = createRfc2136Provider(config(dns, dns.key));
    await assert.rejects(nowhere.present('www.elsewhere.example', 'x'), refusal(/authoritative for no zone holding _acme-challenge\.www\.elsewhere\.example .*set ACME_DNS01_RFC2136_ZONE/));
    assert.deepEqual(await dns.txt('_acme-challenge.shop.test'), [], 'nothing was written');
  });

  describe('through a relay', () => {
    let relay: Awaited<ReturnType<typeof startRelay>>;
    before(async () => { relay = await startRelay(dns); });
    after(async () => { await relay?.close(); });
    const provider = () => createRfc2136Provider(config({ host: '127.0.0.1', port: relay.port }, dns.key, { zone: 'shop.test' }), { pollMs: 100, timeoutMs: 2000 });

    test('an answer without a TSIG record is refused, even a NOERROR', async () => {
      relay.mode = 'unsigned';
      await assert.rejects(provider().present('shop.test', 'unsigned'), refusal(/answered NOERROR without a TSIG signature; an unsigned answer is not trusted/));
    });

    test('an answer whose MAC does not verify is refused', async () => {
      relay.mode = 'tampered';
      await assert.rejects(provider().present('shop.test', 'tampered'), refusal(/signature of the DNS server 127\.0\.0\.1:\d+'s answer does not verify with key "berth-acme"; refused/));
      // the server did apply that update (only its answer was spoiled): take it back
      relay.mode = 'relay';
      await provider().cleanup('shop.test', 'tampered');
    });

    test('a truncated UDP answer is asked again over TCP', async () => {
      relay.mode = 'truncated';
      const before = relay.tcpExchanges;
      await provider().present('shop.test', 'over-tcp');
      assert.ok(relay.tcpExchanges > before, 'TCP was used');
      assert.deepEqual(await dns.txt('_acme-challenge.shop.test'), ['over-tcp']);
      await provider().cleanup('shop.test', 'over-tcp');
      assert.deepEqual(await dns.txt('_acme-challenge.shop.test'), []);
    });
  });
});
