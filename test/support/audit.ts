// The API server's audit log (written by the test control plane, Metadata level for every non-read
// request) tells who wrote what and when — the ground truth for "zero writes in a steady state" and
// "no two leaders wrote at once", independent of anything the operator reports about itself.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { controlPlane } from './cluster.js';

/**
 * The audit log's text, rotated files first (kube-apiserver renames audit.log to
 * audit-<timestamp>.log when it rotates; the timestamps sort in time order), then the current file,
 * up to its last complete line.
 */
export function auditLogText(path: string): string {
  const ext = extname(path);
  const stem = basename(path, ext);
  const rotated = readdirSync(dirname(path))
    .filter((f) => f.startsWith(`${stem}-`) && f.endsWith(ext))
    .sort();
  const text = [...rotated.map((f) => join(dirname(path), f)), path]
    .map((f) => readFileSync(f, 'utf8'))
    .join('');
  // The API server may be writing its last line as we read: only complete lines are events.
  return text.slice(0, text.lastIndexOf('\n') + 1);
}

export interface AuditEvent {
  verb: string;
  user: { username: string };
  objectRef?: {
    resource?: string;
    namespace?: string;
    name?: string;
    subresource?: string;
    apiGroup?: string;
  };
  responseStatus?: { code?: number };
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  stage: string;
}

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
/**
 * Kinds whose `create` is a question, not a write: the API server answers and persists nothing (an
 * operator asks whether RBAC lets it read a kind cluster-wide before it watches it).
 */
const QUERY_RESOURCES = new Set([
  'selfsubjectaccessreviews',
  'selfsubjectrulesreviews',
  'subjectaccessreviews',
  'localsubjectaccessreviews',
  'tokenreviews',
]);

/** Every completed write request in the audit log (optionally by one user, since a time); access reviews are not writes. */
export function auditWrites(filter: { username?: string; since?: Date; until?: Date } = {}): AuditEvent[] {
  const text = auditLogText(controlPlane().auditLogPath);
  const out: AuditEvent[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    const ev = JSON.parse(line) as AuditEvent;
    if (ev.stage !== 'ResponseComplete' || !WRITE_VERBS.has(ev.verb)) continue;
    if (QUERY_RESOURCES.has(ev.objectRef?.resource ?? '')) continue;
    if (filter.username && ev.user.username !== filter.username) continue;
    const t = new Date(ev.requestReceivedTimestamp);
    if (filter.since && t < filter.since) continue;
    if (filter.until && t > filter.until) continue;
    out.push(ev);
  }
  return out;
}

export function describeAudit(ev: AuditEvent): string {
  const r = ev.objectRef ?? {};
  return `${ev.requestReceivedTimestamp} ${ev.user.username} ${ev.verb} ${r.resource}${r.subresource ? '/' + r.subresource : ''} ${r.namespace ?? ''}/${r.name ?? ''} → ${ev.responseStatus?.code}`;
}
