// A client of berth's ingress by host name on loopback, for the HTTPS tests: the certificate a new
// TLS connection gets for an SNI name (null when the handshake is refused), an HTTPS GET trusting a
// given root, and a plain HTTP GET that does not follow redirects.
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';

export function servedCertificate(port: number, servername: string, ca: string): Promise<tls.PeerCertificate | null> {
  return new Promise((resolve) => {
    const socket = tls.connect({ port, host: '127.0.0.1', servername, ca, rejectUnauthorized: true }, () => {
      const cert = socket.getPeerCertificate();
      socket.end();
      resolve(cert);
    });
    socket.on('error', () => resolve(null));
  });
}

export function httpsGet(port: number, host: string, ca: string, path = '/'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    https.get({ host: '127.0.0.1', port, path, servername: host, headers: { host }, ca, agent: false }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

export function httpGet(port: number, host: string, path = '/'): Promise<{ status: number; location: string | undefined }> {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path, headers: { host }, agent: false }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, location: res.headers.location });
    }).on('error', reject);
  });
}
