import { PGlite } from '@electric-sql/pglite';
const db = await PGlite.create(process.argv[2]);
for (const q of [
 "select o.user_id, u.username, o.phone_number, o.source, o.session_id, o.created_at from opt_outs o join users u on u.id=o.user_id order by o.created_at",
 "select l.user_id, u.username, l.name, c.phone_number from contacts c join contact_lists l on l.id=c.list_id join users u on u.id=l.user_id",
 "select * from erasures",
 "select * from consent_grants",
]) { const r = await db.query(q); console.log(q.slice(0,60)); console.table(r.rows); }
