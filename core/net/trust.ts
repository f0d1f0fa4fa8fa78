/**
 * The certificate authorities the service trusts beyond the machine's own, from one setting
 * (`WEBPERF_EXTRA_CA_CERTS`: a PEM file of one or more certificates), for both clients it has:
 *
 * - Node (the probes, the TLS probe's verdict, webhook delivery): the file's certificates are
 *   added to Node's own roots (its bundle plus `NODE_EXTRA_CA_CERTS`, which keeps working).
 * - Chromium: `--ignore-certificate-errors-spki-list` with the SHA-256 of each certificate's
 *   public key. Chosen over an NSS database in the profile because it needs no tool beyond
 *   Chromium itself (NSS's certutil is another package), writes nothing, and holds for exactly the
 *   browser the service launches; Chromium then accepts a chain that contains one of those keys,
 *   so a server must send its chain up to the listed certificate (or list its leaf's key too).
 *
 * Without the setting nothing is added: Node trusts what any Node program on the machine trusts,
 * and Chromium what the user's NSS store holds.
 */
import { X509Certificate, createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import tls from 'node:tls';

export interface TlsTrust {
  /** The extra certificates, PEM, one each. */
  readonly certificates: readonly string[];
  /**
   * A TLS context for tls.connect / https.request (`secureContext`) that trusts Node's roots and
   * the extra certificates, made once per set of protocol options and kept: passing `ca` to each
   * connection instead parses every root certificate again (some 290, ~0.4 s a connection).
   * A given context overrides the connection's own minVersion, maxVersion and ciphers, so those go
   * here. Undefined when nothing is added: Node's default context, as for any Node program.
   */
  secureContext(options?: ContextOptions): tls.SecureContext | undefined;
  /**
   * The https agent for connections made with secureContext(): kept-alive sockets are pooled per
   * trust (Node's agents do not tell contexts apart), so a connection verified under one trust is
   * never reused under another. Undefined with no extra trust (Node's global agent).
   */
  readonly httpsAgent: https.Agent | undefined;
  /** Chromium launch flags that make it trust the same certificates. */
  readonly chromiumArgs: readonly string[];
}

/** The protocol settings a TLS context carries (see TlsTrust.secureContext). */
export interface ContextOptions {
  minVersion?: tls.SecureVersion;
  maxVersion?: tls.SecureVersion;
  ciphers?: string;
}

export const NO_EXTRA_TRUST: TlsTrust = { certificates: [], secureContext: () => undefined, httpsAgent: undefined, chromiumArgs: [] };

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The base64 SHA-256 of a certificate's SubjectPublicKeyInfo, as Chromium's SPKI list takes it. */
export function spkiHash(pem: string): string {
  const der = new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64');
}

/** Trust built from PEM text (one or more certificates). */
export function trustFromPem(text: string, source = 'the extra CA file'): TlsTrust {
  const certificates = text.match(PEM_BLOCK) ?? [];
  if (certificates.length === 0) throw new Error(`${source} holds no PEM certificate`);
  for (const pem of certificates) {
    try {
      new X509Certificate(pem);
    } catch (err) {
      throw new Error(`${source} holds a certificate that cannot be read: ${(err as Error).message}`);
    }
  }
  // Passing `ca` replaces Node's default list, so the defaults are passed along: the bundled
  // roots and NODE_EXTRA_CA_CERTS (read as Node reads it).
  const nodeExtra = process.env.NODE_EXTRA_CA_CERTS ? readPemFile(process.env.NODE_EXTRA_CA_CERTS, true) : [];
  const ca = [...tls.rootCertificates, ...nodeExtra, ...certificates];
  const contexts = new Map<string, tls.SecureContext>();
  return {
    certificates,
    httpsAgent: new https.Agent({ keepAlive: true }),
    secureContext(options = {}) {
      const key = `${options.minVersion ?? ''}|${options.maxVersion ?? ''}|${options.ciphers ?? ''}`;
      let context = contexts.get(key);
      if (!context) {
        context = tls.createSecureContext({ ca, ...options });
        contexts.set(key, context);
      }
      return context;
    },
    chromiumArgs: [`--ignore-certificate-errors-spki-list=${certificates.map(spkiHash).join(',')}`],
  };
}

function readPemFile(file: string, optional: boolean): string[] {
  try {
    return readFileSync(file, 'utf8').match(PEM_BLOCK) ?? [];
  } catch (err) {
    if (optional) return [];
    throw err;
  }
}

/** WEBPERF_EXTRA_CA_CERTS: the file's certificates, or no extra trust when unset. */
export function loadTrust(file: string | null | undefined): TlsTrust {
  if (!file) return NO_EXTRA_TRUST;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`WEBPERF_EXTRA_CA_CERTS: ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  return trustFromPem(text, `WEBPERF_EXTRA_CA_CERTS (${file})`);
}
