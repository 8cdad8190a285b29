// `docker exec` with streams in and out, for database dumps and restores (decision 0720): the
// multiplexed output split into stdout (a stream that keeps backpressure, so a slow reader holds
// the tool back instead of berth buffering the dump; docker-modem's demuxStream ignores write()'s
// answer) and a bounded tail of stderr for the message; the exit code read at the end turns a
// failed tool into a stream error. Input is piped into a hijacked exec's stdin, then half-closed.
import type Docker from 'dockerode';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import type { Duplex } from 'node:stream';
import type { ExecCommand } from './backup-commands.ts';

/** the last `limit` bytes written */
class Tail {
  private chunks: Buffer[] = [];
  private size = 0;
  private readonly limit: number;
  constructor(limit: number) {
    this.limit = limit;
  }
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size - this.chunks[0]!.length >= this.limit) this.size -= this.chunks.shift()!.length;
  }
  text(): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - this.limit)).toString('utf8');
  }
}

/** Docker's 8-byte-header frames → stdout pushed on, stderr kept; `finish` runs before the end (it may fail the stream) */
class Demux extends Transform {
  private pending: Buffer = Buffer.alloc(0);
  private left = 0;
  private kind = 0;
  private readonly stderr: Tail;
  private readonly finish: () => Promise<void>;
  constructor(stderr: Tail, finish: () => Promise<void>) {
    super();
    this.stderr = stderr;
    this.finish = finish;
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    let data: Buffer = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = Buffer.alloc(0);
    while (data.length > 0) {
      if (this.left === 0) {
        if (data.length < 8) { this.pending = data; break; }
        this.kind = data[0]!;
        this.left = data.readUInt32BE(4);
        data = data.subarray(8);
        continue;
      }
      const part = data.subarray(0, this.left);
      this.left -= part.length;
      data = data.subarray(part.length);
      if (this.kind === 2) this.stderr.push(Buffer.from(part));
      else this.push(part);
    }
    done();
  }
  override _flush(done: TransformCallback): void {
    this.finish().then(() => done(), (err: Error) => done(err));
  }
}

/** the exit code of a finished exec (its stream ended; the daemon may take a moment to say so) */
async function exitCodeOf(exec: Docker.Exec): Promise<number> {
  for (let i = 0; ; i++) {
    const info = await exec.inspect();
    if (!info.Running || i >= 50) return info.ExitCode ?? 1;
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface ExecFailureInfo { exitCode: number; stderr: string }

interface ExecOptions {
  /** turns a non-zero exit into the stream's (or the promise's) error */
  failure: (info: ExecFailureInfo) => Error;
  signal: AbortSignal;
  /** run as (default: the image's user) */
  user?: string;
}

async function startExec(container: Docker.Container, command: ExecCommand, stdin: boolean, user?: string) {
  const exec = await container.exec({
    Cmd: command.cmd, Env: Object.entries(command.env).map(([k, v]) => `${k}=${v}`),
    AttachStdout: true, AttachStderr: true, AttachStdin: stdin, ...(user ? { User: user } : {}),
  });
  const socket = await exec.start({ hijack: true, stdin }) as unknown as Duplex;
  return { exec, socket };
}

/** the command's stdout as a stream; it errors when the command exits non-zero, the container goes, or `signal` aborts */
export async function execOutput(container: Docker.Container, command: ExecCommand, options: ExecOptions): Promise<Readable> {
  const { exec, socket } = await startExec(container, command, false, options.user);
  const stderr = new Tail(16 * 1024);
  const out = new Demux(stderr, async () => {
    const exitCode = await exitCodeOf(exec);
    if (exitCode !== 0) throw options.failure({ exitCode, stderr: stderr.text() });
  });
  const abort = () => out.destroy(options.signal.reason instanceof Error ? options.signal.reason : new Error('aborted'));
  if (options.signal.aborted) abort();
  options.signal.addEventListener('abort', abort, { once: true });
  out.once('close', () => { options.signal.removeEventListener('abort', abort); socket.destroy(); });
  socket.on('error', (err) => out.destroy(err));
  socket.pipe(out);
  return out;
}

/** runs the command with `input` (if any) on its stdin; resolves with what it printed (bounded) when it exits 0 */
export async function execRun(container: Docker.Container, command: ExecCommand, input: Readable | null, options: ExecOptions): Promise<string> {
  const { exec, socket } = await startExec(container, command, input !== null, options.user);
  const stderr = new Tail(16 * 1024);
  const stdout = new Tail(4 * 1024 * 1024);
  const out = new Demux(stderr, async () => {});
  out.on('data', (chunk: Buffer) => stdout.push(chunk));
  let broken: Error | null = null;
  const finished = new Promise<void>((resolve, reject) => {
    out.once('end', resolve);
    out.once('error', reject);
    // a command that exits before reading all its input breaks the pipe: its exit code and stderr say why
    socket.once('error', (err) => { broken = err; resolve(); });
    input?.once('error', (err) => { socket.destroy(); reject(err); });
    const abort = () => {
      socket.destroy();
      reject(options.signal.reason instanceof Error ? options.signal.reason : new Error('aborted'));
    };
    if (options.signal.aborted) abort();
    options.signal.addEventListener('abort', abort, { once: true });
    out.once('close', () => options.signal.removeEventListener('abort', abort));
  });
  socket.pipe(out);
  // the input ends: half-close, so the command reads EOF and the output keeps coming
  input?.pipe(socket);
  try {
    await finished;
  } finally {
    input?.unpipe(socket);
    socket.destroy();
  }
  const exitCode = await exitCodeOf(exec);
  if (exitCode !== 0) throw options.failure({ exitCode, stderr: stderr.text() });
  if (broken) throw broken;
  return stdout.text();
}
