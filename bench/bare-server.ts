// The baseline of every ratio: a bare Fastify server with one route returning a small JSON object
// (no authentication, no rate limiting, no database). Run as a child process by bench/run.ts;
// listens on PORT and prints nothing.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ ok: true, service: 'bench', version: '1.0.0' }));
await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
