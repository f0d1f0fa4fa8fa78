/**
 * Premium portal accounts: users, the sites of standard users, one-time password-set tokens,
 * server-side sessions, and who owns a portal-created API key or placed a portal order.
 * Frozen in time: never import app code here.
 */
import { sql, type Kysely } from '../core/db/kysely.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'serial', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    /** Argon2id PHC string; null until the user has set a password through the one-time link. */
    .addColumn('password_hash', 'text')
    /** standard: the sites in user_sites; agency: every site (the whole portfolio). */
    .addColumn('level', 'text', (c) => c.notNull().check(sql`level in ('standard', 'agency')`))
    .addColumn('failed_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_until', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('password_set_at', 'timestamptz')
    .execute();
  // Case-insensitive uniqueness without the citext extension.
  await sql`create unique index users_email_lower on users (lower(email))`.execute(db);

  await db.schema
    .createTable('user_sites')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('site_id', 'integer', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('user_sites_pk', ['user_id', 'site_id'])
    .execute();

  await db.schema
    .createTable('password_tokens')
    /** SHA-256 of the token in the link; the token itself is never stored. */
    .addColumn('token_hash', 'bytea', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('sessions')
    /** SHA-256 of the session id in the cookie: a leaked table does not hand out sessions. */
    .addColumn('id_hash', 'bytea', (c) => c.primaryKey())
    /** Null while nobody is signed in (the session then only carries a CSRF secret). */
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('data', 'jsonb', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();
  await db.schema.createIndex('sessions_expires').on('sessions').column('expires_at').execute();

  await db.schema
    .alterTable('api_keys')
    /** The portal user who created the key; null for keys made by an operator. */
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('last_used_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('api_keys_user').on('api_keys').column('user_id').execute();

  await db.schema
    .alterTable('orders')
    /** The portal user who placed the order; null for orders through the API or the service. */
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('orders').dropColumn('user_id').execute();
  await db.schema.dropIndex('api_keys_user').ifExists().execute();
  await db.schema.alterTable('api_keys').dropColumn('user_id').dropColumn('last_used_at').execute();
  await db.schema.dropTable('sessions').execute();
  await db.schema.dropTable('password_tokens').execute();
  await db.schema.dropTable('user_sites').execute();
  await db.schema.dropTable('users').execute();
}
