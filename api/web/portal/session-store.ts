/**
 * The @fastify/session store over PostgreSQL (core/store/users.ts): sessions live server-side so
 * that signing out and changing the password end them everywhere, and survive a restart or a
 * second API process. Only the SHA-256 of a session id is stored.
 */
import type { Session } from 'fastify';
import type { Db } from '../../../core/db/database.js';
import { deleteSession, readSession, writeSession } from '../../../core/store/users.js';

type Callback = (err?: unknown) => void;
type GetCallback = (err: unknown, session?: Session | null) => void;

/** What the portal keeps in a session besides the CSRF secret. */
export interface PortalSessionData {
  userId?: number;
  /** One message for the next page after a redirect (post-redirect-get). */
  flash?: { kind: 'ok' | 'error'; text: string };
}

export class PgSessionStore {
  constructor(private readonly db: Db, private readonly maxAgeMs: number) {}

  get(sessionId: string, callback: GetCallback): void {
    readSession(this.db, sessionId).then((data) => callback(null, data as Session | null), (err: unknown) => callback(err));
  }

  set(sessionId: string, session: Session, callback: Callback): void {
    const cookie = (session as { cookie?: { expires?: Date | string | null } }).cookie;
    const expires = cookie?.expires ? new Date(cookie.expires) : new Date(Date.now() + this.maxAgeMs);
    const data = JSON.parse(JSON.stringify(session)) as Record<string, unknown>;
    writeSession(this.db, sessionId, data, typeof session.userId === 'number' ? session.userId : null, expires).then(() => callback(), (err: unknown) => callback(err));
  }

  destroy(sessionId: string, callback: Callback): void {
    deleteSession(this.db, sessionId).then(() => callback(), (err: unknown) => callback(err));
  }
}
