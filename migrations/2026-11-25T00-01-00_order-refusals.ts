/**
 * What an API process needs to refuse an order of a site out of credits without asking the
 * database again (api/plugins/cache.ts, `refusals`):
 *
 * - `place_order` also answers `frees_in_ms`: how long, from the statement's start, until the
 *   oldest ledger row in the window leaves it, the first moment the site's available credits can
 *   grow by themselves (null: no row in the window). A refusal is known to stand until then,
 *   unless the site's ceiling is raised (the site's or its level's quota: cache events).
 * - An accepted order queues the cache event `{"credits": <site>}`, delivered on commit, so that
 *   every process drops what it knew of the site's credits: the number a refusal quotes stays the
 *   database's.
 *
 * Otherwise the function is that of 2026-11-23T00-07-00_place-order-function.ts, unchanged: the
 * same lock, reads and writes, in the same order. Its result type changes, so it is dropped and
 * created again (in the migration's transaction: no caller sees it missing).
 *
 * Frozen in time: never import app code here.
 */
import { sql, type Kysely } from '../core/db/kysely.js';

const SIGNATURE = sql.raw('place_order(integer, integer, integer, text, integer, jsonb, jsonb, text, integer, integer)');

/**
 * `place_order` with (`refusals`: this migration) or without (2026-11-23T00-07-00, for `down`)
 * its `frees_in_ms` answer and its `credits` event; otherwise the same text. Only raw fragments
 * are spliced in: the body carries no parameters.
 */
function placeOrder(refusals: boolean) {
  const when = (text: string) => sql.raw(refusals ? text : '');
  return sql`
    create function place_order(
      p_site integer, p_key integer, p_user integer, p_kind text, p_credits integer, p_payload jsonb,
      p_runs jsonb, p_task text, p_max_attempts integer, p_period_days integer,
      out site_found boolean, out site_url text, out available integer, out order_id bigint, out run_ids bigint[]${when(`,
      out frees_in_ms bigint`)}
    ) language plpgsql as $$
    declare
      v_ceiling integer;
      v_used integer;${when(`
      v_oldest timestamptz;`)}
    begin
      available := 0;
      -- Twice: first without the lock, then under it. An order that does not fit in the committed
      -- ledger is refused at once, read-only (no row lock, no transaction id, no WAL): ledger rows
      -- are only ever added, so credits free up only as rows leave the window or a ceiling is
      -- raised, and "it does not fit" was true at this moment of the request — the answer it would
      -- have got had the lock been granted now. Only the second, locked read can accept.
      for v_pass in 1..2 loop
        if v_pass = 1 then
          select s.url, coalesce(s.monthly_quota, (select p.monthly_quota from premium_levels p where p.name = s.premium_level), 0)
            into site_url, v_ceiling
            from sites s where s.id = p_site;
        else
          select s.url, coalesce(s.monthly_quota, (select p.monthly_quota from premium_levels p where p.name = s.premium_level), 0)
            into site_url, v_ceiling
            from sites s where s.id = p_site
            for no key update of s;
        end if;
        site_found := found;
        if not site_found then return; end if;
        -- A statement of its own, after the lock: it sees every order committed before the lock was granted.
        select coalesce(sum(l.credits), 0)::integer${when(', min(l.created_at)')} into v_used${when(', v_oldest')}
          from credit_ledger l
          where l.site_id = p_site and l.created_at > now() - make_interval(days => p_period_days);
        available := greatest(0, v_ceiling - v_used);
        if p_credits > available then${when(`
          -- No row in the window: nothing frees by itself. Never below 0: a row at the window's
          -- edge may be leaving it now.
          frees_in_ms := case when v_oldest is not null then
            greatest(0, floor(extract(epoch from (v_oldest + make_interval(days => p_period_days) - now())) * 1000))::bigint end;`)}
          return;
        end if;
      end loop;
      insert into orders (site_id, key_id, user_id, kind, credits, payload)
        values (p_site, p_key, p_user, p_kind, p_credits,
          case when p_payload->'url' = 'null'::jsonb then jsonb_set(p_payload, '{url}', to_jsonb(site_url)) else p_payload end)
        returning id into order_id;
      insert into credit_ledger (site_id, order_id, credits) values (p_site, order_id, p_credits);
      run_ids := queue_runs(p_site, order_id, p_runs, p_task, p_max_attempts);
      available := available - p_credits;${when(`
      perform pg_notify('webperf_cache', json_build_object('credits', p_site)::text);`)}
    end
    $$`;
}

export async function up(db: Kysely<any>): Promise<void> {
  await sql`drop function ${SIGNATURE}`.execute(db);
  await placeOrder(true).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop function ${SIGNATURE}`.execute(db);
  await placeOrder(false).execute(db);
}
