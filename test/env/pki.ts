// Certificates and keys for the test control plane, made with the openssl CLI (Node's crypto cannot
// issue X.509 certificates). One CA signs the API server's serving certificate and every client
// certificate; client identity follows Kubernetes' x509 authenticator: CN = user, O = group.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Pki {
  dir: string;
  caCert: string;
  caKey: string;
  servingCert: string;
  servingKey: string;
  /** ServiceAccount token signing key pair (TokenRequest issues real, verifiable tokens). */
  saKey: string;
  saPub: string;
}

function openssl(args: string[]): void {
  try {
    execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(
      `openssl ${args[0]} failed (is openssl installed?): ${stderr || (err as Error).message}`,
      { cause: err },
    );
  }
}

export function createPki(dir: string): Pki {
  mkdirSync(dir, { recursive: true });
  const p = (name: string) => join(dir, name);
  openssl([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    p('ca.key'),
    '-out',
    p('ca.crt'),
    '-days',
    '3650',
    '-subj',
    '/CN=glooha-test-ca',
  ]);
  writeFileSync(
    p('serving.ext'),
    [
      'basicConstraints=CA:FALSE',
      'keyUsage=digitalSignature,keyEncipherment',
      'extendedKeyUsage=serverAuth',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ].join('\n'),
  );
  openssl([
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    p('serving.key'),
    '-out',
    p('serving.csr'),
    '-subj',
    '/CN=kube-apiserver',
  ]);
  openssl([
    'x509',
    '-req',
    '-in',
    p('serving.csr'),
    '-CA',
    p('ca.crt'),
    '-CAkey',
    p('ca.key'),
    '-CAcreateserial',
    '-out',
    p('serving.crt'),
    '-days',
    '3650',
    '-extfile',
    p('serving.ext'),
  ]);
  openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', p('sa.key')]);
  openssl(['pkey', '-in', p('sa.key'), '-pubout', '-out', p('sa.pub')]);
  return loadPki(dir);
}

/** The Pki that createPki(dir) wrote (for a second API server on the same control plane). */
export function loadPki(dir: string): Pki {
  const p = (name: string) => join(dir, name);
  return {
    dir,
    caCert: p('ca.crt'),
    caKey: p('ca.key'),
    servingCert: p('serving.crt'),
    servingKey: p('serving.key'),
    saKey: p('sa.key'),
    saPub: p('sa.pub'),
  };
}

/** A client certificate for `user` in `groups`, signed by the control plane's CA. */
export function createClientCert(pki: Pki, user: string, groups: string[]): { cert: string; key: string } {
  const base = join(pki.dir, `client-${user.replace(/[^a-zA-Z0-9_-]/g, '_')}`);
  const subject = `/CN=${user}` + groups.map((g) => `/O=${g}`).join('');
  writeFileSync(
    `${base}.ext`,
    'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n',
  );
  openssl([
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    `${base}.key`,
    '-out',
    `${base}.csr`,
    '-subj',
    subject,
  ]);
  openssl([
    'x509',
    '-req',
    '-in',
    `${base}.csr`,
    '-CA',
    pki.caCert,
    '-CAkey',
    pki.caKey,
    '-CAcreateserial',
    '-out',
    `${base}.crt`,
    '-days',
    '3650',
    '-extfile',
    `${base}.ext`,
  ]);
  return { cert: `${base}.crt`, key: `${base}.key` };
}
