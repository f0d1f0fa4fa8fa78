/**
 * The test world's certificate authority: made when the suite starts (test/run.ts writes it to a
 * folder named by WEBPERF_TEST_CA_DIR, so that every test file, and every service process a test
 * starts, trusts the same one), and the certificates it issues to the fixture hosts: valid ones,
 * and the broken kinds type 21 must recognise (expired, not yet valid, for another name,
 * self-signed, expiring soon). ECDSA P-256 keys: made in milliseconds.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { randomBytes, webcrypto } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 86_400_000;
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';

export interface IssuedCertificate {
  /** The leaf, then the CA (a server sends its chain). */
  cert: string;
  key: string;
}

/** What is wrong with a certificate, if anything. */
export type CertificateKind = 'valid' | 'expired' | 'not-yet-valid' | 'wrong-name' | 'self-signed';

export interface IssueOptions {
  kind?: CertificateKind;
  /** Days from now to the end of validity (valid and wrong-name; default 90). */
  days?: number;
}

export interface TestCa {
  /** The CA certificate, PEM: what WEBPERF_EXTRA_CA_CERTS names. */
  certPem: string;
  /** The CA's certificate file (written on creation or load). */
  certFile: string;
  issue(names: readonly string[], options?: IssueOptions): Promise<IssuedCertificate>;
}

const serial = () => randomBytes(8).toString('hex').replace(/^[89a-f]/, '1');

async function pkcs8Pem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`;
}

function pemBody(pem: string, label: string): Buffer {
  const m = new RegExp(`-----BEGIN ${label}-----([\\s\\S]+?)-----END ${label}-----`).exec(pem);
  if (!m) throw new Error(`no ${label} in PEM`);
  return Buffer.from(m[1].replace(/\s+/g, ''), 'base64');
}

function caFrom(ca: x509.X509Certificate, caKey: CryptoKey, certFile: string): TestCa {
  const certPem = ca.toString('pem');
  return {
    certPem,
    certFile,
    async issue(names, options = {}) {
      const kind = options.kind ?? 'valid';
      const now = Date.now();
      const days = options.days ?? 90;
      const [notBefore, notAfter] = kind === 'expired' ? [new Date(now - 400 * DAY), new Date(now - 5 * DAY)]
        : kind === 'not-yet-valid' ? [new Date(now + 5 * DAY), new Date(now + 400 * DAY)]
          : [new Date(now - DAY), new Date(now + days * DAY)];
      const subjectNames = kind === 'wrong-name' ? names.map((n) => `other-${n}`) : names;
      const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']) as CryptoKeyPair;
      const extensions = [
        new x509.SubjectAlternativeNameExtension(subjectNames.map((value) => (/^[\d.]+$/.test(value) ? { type: 'ip' as const, value } : { type: 'dns' as const, value }))),
        new x509.BasicConstraintsExtension(false),
        new x509.ExtendedKeyUsageExtension([SERVER_AUTH]),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      ];
      const subject = `CN=${subjectNames[0]}`;
      const leaf = kind === 'self-signed'
        ? await x509.X509CertificateGenerator.createSelfSigned({ serialNumber: serial(), name: subject, notBefore, notAfter, keys, signingAlgorithm: ALG, extensions })
        : await x509.X509CertificateGenerator.create({
          serialNumber: serial(), subject, issuer: ca.subject, notBefore, notAfter,
          signingKey: caKey, publicKey: keys.publicKey, signingAlgorithm: ALG, extensions,
        });
      const chain = kind === 'self-signed' ? leaf.toString('pem') : `${leaf.toString('pem')}\n${certPem}`;
      return { cert: `${chain}\n`, key: await pkcs8Pem(keys.privateKey) };
    },
  };
}

/** A new CA, written to `dir` (ca.pem, ca-key.pem). */
export async function createTestCa(dir: string): Promise<TestCa> {
  const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']) as CryptoKeyPair;
  const now = Date.now();
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: 'CN=webperf test world CA, O=webperf tests',
    notBefore: new Date(now - 2 * DAY),
    notAfter: new Date(now + 800 * DAY),
    keys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  await mkdir(dir, { recursive: true });
  const certFile = path.join(dir, 'ca.pem');
  await writeFile(certFile, ca.toString('pem') + '\n');
  await writeFile(path.join(dir, 'ca-key.pem'), await pkcs8Pem(keys.privateKey), { mode: 0o600 });
  return caFrom(ca, keys.privateKey, certFile);
}

/** The CA that createTestCa wrote to `dir`. */
export async function loadTestCa(dir: string): Promise<TestCa> {
  const certFile = path.join(dir, 'ca.pem');
  const ca = new x509.X509Certificate(await readFile(certFile, 'utf8'));
  const key = await webcrypto.subtle.importKey('pkcs8', pemBody(await readFile(path.join(dir, 'ca-key.pem'), 'utf8'), 'PRIVATE KEY'), ALG, false, ['sign']);
  return caFrom(ca, key, certFile);
}
