/**
 * Orders in one round trip: `place_order` does what core/store/orders.ts did in ~9 statements
 * (lock the site, sum its ledger, write the order, its ledger row and its runs, queue their jobs)
 * as one function call, so an order — accepted or refused — costs one statement, and the API
 * holds a pool connection for one round trip instead of a whole conversation. `queue_runs` is the
 * part that writes runs and queues their jobs, shared with queueRun.
 *
 * Correctness is the same as before: the site row is locked FOR NO KEY UPDATE before the
 * accepting read (racing orders for one site queue up on it), and the ledger is summed by a later
 * statement of the function, which in READ COMMITTED (a volatile plpgsql function takes a fresh
 * snapshot per statement) sees the rows of every order that committed before the lock was
 * granted. An order that does not fit even before the lock is refused without taking it (see
 * place_order). The jobs are inserted with graphile-worker's own SQL API
 * (`graphile_worker.add_jobs`), in the same transaction as the runs. plpgsql, not sql: its body is
 * checked only when first called, so the graphile_worker schema (installed by the runner's
 * migrations) need not exist yet.
 *
 * Frozen in time: never import app code here.
 */
import { sql, type Kysely } from '../core/db/kysely.js';

export async function up(db: Kysely<any>): Promise<void> {
  // p_runs: [{"url": text | null, "private": boolean, "test_types": [int] | null}, ...]; a null url
  // is the site's start page (sites.url). Each run gets one job of task p_task with payload
  // {"runId": id}. Returns the run ids in the order of p_runs.
  await sql`
    create function queue_runs(p_site integer, p_order bigint, p_runs jsonb, p_task text, p_max_attempts integer)
    returns bigint[] language plpgsql as $$
    declare
      v_run jsonb;
      v_id bigint;
      v_ids bigint[] := '{}';
    begin
      for v_run in select value from jsonb_array_elements(p_runs) loop
        insert into test_runs (site_id, url, private, order_id, test_types)
        values (
          p_site,
          coalesce(v_run->>'url', (select s.url from sites s where s.id = p_site)),
          coalesce((v_run->>'private')::boolean, false),
          p_order,
          case when jsonb_typeof(v_run->'test_types') = 'array'
            then array(select jsonb_array_elements_text(v_run->'test_types')::integer) end
        )
        returning id into v_id;
        v_ids := v_ids || v_id;
      end loop;
      if cardinality(v_ids) > 0 then
        perform graphile_worker.add_jobs(array(
          select row(p_task, json_build_object('runId', id), null::text, null::timestamptz, p_max_attempts::smallint, null::text, 0::smallint, null::text[])::graphile_worker.job_spec
          from unnest(v_ids) with ordinality as r(id, n) order by n
        ));
      end if;
      return v_ids;
    end
    $$`.execute(db);

  // site_found false: no such site (nothing done). order_id null with site_found: refused, the
  // order does not fit in \`available\` (nothing written). Otherwise accepted; \`available\` is what
  // remains after it. site_url: the site's start page, read under the lock; a payload whose "url"
  // is null and runs whose url is null get it (a re-test needs no separate read of the site).
  await sql`
    create function place_order(
      p_site integer, p_key integer, p_user integer, p_kind text, p_credits integer, p_payload jsonb,
      p_runs jsonb, p_task text, p_max_attempts integer, p_period_days integer,
      out site_found boolean, out site_url text, out available integer, out order_id bigint, out run_ids bigint[]
    ) language plpgsql as $$
    declare
      v_ceiling integer;
      v_used integer;
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
        select coalesce(sum(l.credits), 0)::integer into v_used
          from credit_ledger l
          where l.site_id = p_site and l.created_at > now() - make_interval(days => p_period_days);
        available := greatest(0, v_ceiling - v_used);
        if p_credits > available then return; end if;
      end loop;
      insert into orders (site_id, key_id, user_id, kind, credits, payload)
        values (p_site, p_key, p_user, p_kind, p_credits,
          case when p_payload->'url' = 'null'::jsonb then jsonb_set(p_payload, '{url}', to_jsonb(site_url)) else p_payload end)
        returning id into order_id;
      insert into credit_ledger (site_id, order_id, credits) values (p_site, order_id, p_credits);
      run_ids := queue_runs(p_site, order_id, p_runs, p_task, p_max_attempts);
      available := available - p_credits;
    end
    $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop function if exists place_order(integer, integer, integer, text, integer, jsonb, jsonb, text, integer, integer)`.execute(db);
  await sql`drop function if exists queue_runs(integer, bigint, jsonb, text, integer)`.execute(db);
}
