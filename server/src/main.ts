import { type Config, loadConfig } from './config.ts';
import { ConfigError } from './errors.ts';
import { startServer } from './server.ts';

let config: Config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(`Configuration error: ${err.message}`);
    process.exit(1);
  }
  throw err;
}

let server: Awaited<ReturnType<typeof startServer>>;
try {
  server = await startServer(config);
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(`Configuration error: ${err.message}`);
    process.exit(1);
  }
  throw err;
}
const where = config.databaseUrl
  ? `PostgreSQL (${config.databaseUrl.replace(/\/\/[^@]*@/, '//***@')})`
  : `${config.dataDir}`;
const lines = [
  '',
  `  WhatsApp bulk messaging console is running at ${server.url}`,
  `  Data: ${where}`,
  `  WhatsApp provider: ${config.waProvider}${config.waProvider === 'simulator' ? ' (simulated network, no real messages)' : ''}`,
];
// A password the operator chose is theirs already: printing it would only copy it into logs.
if (server.admin?.generated) {
  lines.push(
    `  First start: admin user '${server.admin.username}' created with password: ${server.admin.password}`,
    '  (shown only this once: sign in and keep it safe, or set ADMIN_PASSWORD)',
  );
} else if (server.admin) {
  lines.push(
    `  First start: admin user '${server.admin.username}' created with the password from ADMIN_PASSWORD`,
  );
}
console.log(`${lines.join('\n')}\n`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.ctx.log.info({ signal }, 'shutting down');
    server
      .stop()
      .then(() => process.exit(0))
      .catch(() => process.exit(1));
  });
}
