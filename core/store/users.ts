/**
 * Premium portal accounts. A user is created by an operator (`webperf users add`) without a
 * password and gets a one-time link to set one. Passwords are Argon2id hashes (@node-rs/argon2,
 * its defaults follow OWASP's minimum: 19 MiB, 2 passes); one-time tokens are stored as SHA-256
 * hashes. Failed sign-ins are counted per account and lock it for a while (the portal also
 * rate-limits sign-ins per address).
 *
 * A user's reach is expressed like a key's (`siteIds`, null = every site), so the portal checks
 * access with the same `canReach` as the API.
 */
import { createHash, randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import { sql } from '../db/kysely.js';
import type { Db } from '../db/database.js';

export type UserLevel = 'standard' | 'agency';

/** A signed-in user, as the portal needs them on every request. */
export interface PortalUser {
  id: number;
  email: string;
  level: UserLevel;
  /** Sites the user reaches; null means every site (agency: the whole portfolio). */
  siteIds: number[] | null;
}

/** Failed sign-ins in a row that lock an account. */
export const MAX_FAILED_SIGN_INS = 5;
/** How long a locked account stays locked. */
export const LOCK_MINUTES = 15;
/** How long a password-set link is valid. */
export const PASSWORD_TOKEN_HOURS = 72;
export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 256;

const EMAIL_RE = /^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+$/;

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** Verified against when the email is unknown, so that an unknown account costs as much as a wrong password. */
let dummyHash: Promise<string> | null = null;

export function validEmail(email: string): boolean {
  return email.length <= 254 && EMAIL_RE.test(email);
}

/** Why a new password is not acceptable, or null. */
export function passwordProblem(password: string): 'too_short' | 'too_long' | null {
  if ([...password].length < MIN_PASSWORD_LENGTH) return 'too_short';
  if (password.length > MAX_PASSWORD_LENGTH) return 'too_long';
  return null;
}

/** Creates a user (email unique, case-insensitively); null when the email is taken. */
export async function createUser(db: Db, input: { email: string; level: UserLevel; siteIds: number[] }): Promise<number | null> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('users')
      .values({ email: input.email.trim(), level: input.level })
      .onConflict((oc) => oc.expression(sql`lower(email)`).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!row) return null;
    if (input.level === 'standard' && input.siteIds.length) {
      await trx.insertInto('user_sites').values(input.siteIds.map((site_id) => ({ user_id: row.id, site_id }))).execute();
    }
    return row.id;
  });
}

export async function findUserByEmail(db: Db, email: string) {
  return db.selectFrom('users').selectAll().where(sql<string>`lower(email)`, '=', email.trim().toLowerCase()).executeTakeFirst();
}

/** The user with their reach, or null. */
export async function getPortalUser(db: Db, id: number): Promise<PortalUser | null> {
  const row = await db.selectFrom('users').select(['id', 'email', 'level']).where('id', '=', id).executeTakeFirst();
  if (!row) return null;
  const level = row.level as UserLevel;
  if (level === 'agency') return { id: row.id, email: row.email, level, siteIds: null };
  const sites = await db.selectFrom('user_sites').select('site_id').where('user_id', '=', id).orderBy('site_id').execute();
  return { id: row.id, email: row.email, level, siteIds: sites.map((s) => s.site_id) };
}

/** Where a password-set token is redeemed: the portal's page. */
export function passwordSetLink(base: string, token: string): string {
  return `${base.replace(/\/+$/, '')}/portal/set-password?token=${token}`;
}

/** Every user with their sites, for the operator (never a hash). */
export async function listUsers(db: Db) {
  const users = await db.selectFrom('users').select(['id', 'email', 'level', 'created_at', 'password_set_at']).orderBy('id').execute();
  const links = await db.selectFrom('user_sites').select(['user_id', 'site_id']).orderBy('site_id').execute();
  return users.map((u) => ({ ...u, site_ids: links.filter((l) => l.user_id === u.id).map((l) => l.site_id) }));
}

/** Sets a password directly (the demo account; operators use the one-time link). */
export async function setPassword(db: Db, userId: number, password: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ password_hash: await hash(password), password_set_at: new Date(), failed_attempts: 0, locked_until: null })
    .where('id', '=', userId)
    .execute();
}

/** A one-time password-set token for the user (returned once; stored hashed). */
export async function issuePasswordToken(db: Db, userId: number, now = new Date()): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await db
    .insertInto('password_tokens')
    .values({ token_hash: sha256(token), user_id: userId, expires_at: new Date(now.getTime() + PASSWORD_TOKEN_HOURS * 3600_000) })
    .execute();
  return token;
}

/** Whether a password-set token is unused and unexpired (for showing the form). */
export async function passwordTokenValid(db: Db, token: string): Promise<boolean> {
  const row = await db
    .selectFrom('password_tokens')
    .select('user_id')
    .where('token_hash', '=', sha256(token))
    .where('used_at', 'is', null)
    .where('expires_at', '>', new Date())
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Sets the password through a one-time token: the token is spent, the account unlocked, and
 * every session of the user ended. Null when the token is unknown, used or expired.
 */
export async function setPasswordWithToken(db: Db, token: string, password: string): Promise<number | null> {
  const passwordHash = await hash(password);
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('password_tokens')
      .set({ used_at: new Date() })
      .where('token_hash', '=', sha256(token))
      .where('used_at', 'is', null)
      .where('expires_at', '>', new Date())
      .returning('user_id')
      .executeTakeFirst();
    if (!row) return null;
    await trx
      .updateTable('users')
      .set({ password_hash: passwordHash, password_set_at: new Date(), failed_attempts: 0, locked_until: null })
      .where('id', '=', row.user_id)
      .execute();
    await trx.deleteFrom('sessions').where('user_id', '=', row.user_id).execute();
    return row.user_id;
  });
}

export type SignInOutcome =
  | { ok: true; userId: number }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'locked'; until: Date };

/**
 * Checks email and password. A wrong password counts a failure; the MAX_FAILED_SIGN_INS-th in a
 * row locks the account for LOCK_MINUTES (a locked account refuses even the right password, so
 * guessing gains nothing). The count is updated in one statement so that parallel guesses are
 * all counted.
 */
export async function signIn(db: Db, email: string, password: string, now = new Date()): Promise<SignInOutcome> {
  const user = await findUserByEmail(db, email);
  if (!user || user.password_hash === null) {
    dummyHash ??= hash('not a password of anyone');
    await verify(await dummyHash, password).catch(() => false);
    return { ok: false, reason: 'invalid' };
  }
  if (user.locked_until && user.locked_until > now) return { ok: false, reason: 'locked', until: user.locked_until };
  const ok = await verify(user.password_hash, password).catch(() => false);
  if (ok) {
    await db.updateTable('users').set({ failed_attempts: 0, locked_until: null }).where('id', '=', user.id).execute();
    return { ok: true, userId: user.id };
  }
  const lockUntil = new Date(now.getTime() + LOCK_MINUTES * 60_000);
  const row = await db
    .updateTable('users')
    .set({
      failed_attempts: sql`case when failed_attempts + 1 >= ${MAX_FAILED_SIGN_INS} then 0 else failed_attempts + 1 end`,
      locked_until: sql`case when failed_attempts + 1 >= ${MAX_FAILED_SIGN_INS} then ${lockUntil}::timestamptz else locked_until end`,
    })
    .where('id', '=', user.id)
    .returning('locked_until')
    .executeTakeFirstOrThrow();
  if (row.locked_until && row.locked_until > now) return { ok: false, reason: 'locked', until: row.locked_until };
  return { ok: false, reason: 'invalid' };
}

/**
 * Changes the password after checking the current one; every other session of the user ends
 * (`keepSessionHash` is the one making the change). False when the current password is wrong.
 */
export async function changePassword(db: Db, userId: number, current: string, next: string, keepSessionHash: Buffer | null): Promise<boolean> {
  const user = await db.selectFrom('users').select('password_hash').where('id', '=', userId).executeTakeFirst();
  if (!user?.password_hash || !(await verify(user.password_hash, current).catch(() => false))) return false;
  const passwordHash = await hash(next);
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('users').set({ password_hash: passwordHash, password_set_at: new Date() }).where('id', '=', userId).execute();
    let q = trx.deleteFrom('sessions').where('user_id', '=', userId);
    if (keepSessionHash) q = q.where('id_hash', '!=', keepSessionHash);
    await q.execute();
  });
  return true;
}

// ---- sessions (the store behind @fastify/session) ----

/** The stored form of a session id. */
export const sessionIdHash = (sessionId: string) => sha256(sessionId);

export async function readSession(db: Db, sessionId: string, now = new Date()): Promise<Record<string, unknown> | null> {
  const row = await db
    .selectFrom('sessions')
    .select('data')
    .where('id_hash', '=', sessionIdHash(sessionId))
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row ? (row.data as Record<string, unknown>) : null;
}

export async function writeSession(db: Db, sessionId: string, data: Record<string, unknown>, userId: number | null, expiresAt: Date): Promise<void> {
  const values = { id_hash: sessionIdHash(sessionId), user_id: userId, data: JSON.stringify(data), expires_at: expiresAt };
  await db
    .insertInto('sessions')
    .values(values)
    .onConflict((oc) => oc.column('id_hash').doUpdateSet({ user_id: userId, data: values.data, expires_at: expiresAt }))
    .execute();
}

export async function deleteSession(db: Db, sessionId: string): Promise<void> {
  await db.deleteFrom('sessions').where('id_hash', '=', sessionIdHash(sessionId)).execute();
}

/** Drops expired sessions; called now and then, not per request. */
export async function purgeExpiredSessions(db: Db, now = new Date()): Promise<number> {
  const r = await db.deleteFrom('sessions').where('expires_at', '<=', now).executeTakeFirst();
  return Number(r.numDeletedRows);
}
