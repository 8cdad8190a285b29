// Runs a command-line tool for the engine (git today): spawned without a shell, its stdout and
// stderr split into lines as they arrive (carriage-return progress updates included), killed with
// its whole process group when the deployment is aborted, and resolved with the exit code and the
// last lines it printed so a failure can quote the tool's own words.
import { spawn } from 'node:child_process';

export interface ToolRun {
  code: number;
  /** the last lines the tool printed (stdout and stderr), oldest first */
  tail: string[];
  stdout: string;
}

export interface ToolOptions {
  cwd?: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  /** called with each completed line of stderr (and of stdout unless captured) */
  onLine: (line: string) => void;
  /** keep stdout as a string instead of reporting it line by line */
  captureStdout?: boolean;
}

const TAIL_LINES = 20;
/** progress lines rewritten in place (ending in \r) are reported at most this often */
const PROGRESS_EVERY_MS = 2000;

export function runTool(command: string, args: string[], opts: ToolOptions): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    if (opts.signal.aborted) return reject(opts.signal.reason ?? new Error('aborted'));
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const tail: string[] = [];
    let stdout = '';
    let lastProgress = 0;
    const remember = (line: string) => {
      tail.push(line);
      if (tail.length > TAIL_LINES) tail.shift();
    };
    const flushes: Array<() => void> = [];
    const splitter = () => {
      let pending = '';
      flushes.push(() => {
        const line = pending.trim();
        pending = '';
        if (line) { remember(line); opts.onLine(line); }
      });
      return (chunk: Buffer) => {
        pending += chunk.toString('utf8');
        let at: number;
        while ((at = pending.search(/[\r\n]/)) >= 0) {
          const line = pending.slice(0, at).trimEnd();
          const progress = pending[at] === '\r' && pending[at + 1] !== '\n';
          pending = pending.slice(at + (pending[at] === '\r' && pending[at + 1] === '\n' ? 2 : 1));
          if (!line) continue;
          if (progress) {
            if (Date.now() - lastProgress < PROGRESS_EVERY_MS) continue;
            lastProgress = Date.now();
          }
          remember(line);
          opts.onLine(line);
        }
      };
    };
    child.stderr!.on('data', splitter());
    if (opts.captureStdout) child.stdout!.on('data', (d: Buffer) => { stdout += d.toString('utf8'); });
    else child.stdout!.on('data', splitter());

    const kill = () => {
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { child.kill('SIGKILL'); }
    };
    opts.signal.addEventListener('abort', kill, { once: true });
    child.on('error', (err) => {
      opts.signal.removeEventListener('abort', kill);
      reject(err);
    });
    child.on('close', (code, sig) => {
      opts.signal.removeEventListener('abort', kill);
      if (opts.signal.aborted) return reject(opts.signal.reason ?? new Error('aborted'));
      for (const flush of flushes) flush();
      resolve({ code: code ?? (sig ? 128 : 1), tail, stdout });
    });
  });
}
