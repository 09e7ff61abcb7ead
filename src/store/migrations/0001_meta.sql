-- Store metadata: facts about the store itself, as opposed to the domain data of later migrations.
-- No extensions are created: gen_random_uuid() is built in since Postgres 13, and the embedded PGlite
-- store can only load extensions chosen when it is opened, so the schema avoids depending on any.
create table tradeseal_meta (
  key text primary key,
  value jsonb not null,
  updated_at timestamptz not null default now()
);

-- When this store was created, so `tradeseal db status` can tell a fresh store from an old one.
insert into tradeseal_meta (key, value) values ('created_at', to_jsonb(now()));
