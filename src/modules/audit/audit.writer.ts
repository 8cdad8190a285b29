// Writes audit events in batches (issue 15). Each mutation's answer still waits until its event is
// committed, but events that arrive while a write is in flight go together in the next write: one
// statement per kind of event (audit.repo eventKind) instead of one per event. An idle berth writes
// an event at once (no timer, no added latency); under load the audit log costs a fraction of a
// statement per mutation. A statement that fails is retried event by event, so one bad event loses
// only itself (and no event is written twice: each statement is all or nothing).
import type { Queryable } from '../../db/db.ts';
import { eventKind, insertEvents, type BatchedEvent } from './audit.repo.ts';

export interface AuditWriter {
  /** resolves once the event is committed (or skipped: a creation whose parent is gone) */
  write(event: BatchedEvent): Promise<void>;
}

interface Waiting { event: BatchedEvent; resolve: () => void; reject: (err: unknown) => void }

/** the most events taken in one write */
const AUDIT_BATCH_MAX = 200;

export function createAuditWriter(db: Queryable): AuditWriter {
  let waiting: Waiting[] = [];
  let writing = false;

  async function drain(): Promise<void> {
    writing = true;
    try {
      while (waiting.length > 0) {
        const batch = waiting.slice(0, AUDIT_BATCH_MAX);
        waiting = waiting.slice(batch.length);
        for (const ofKind of Map.groupBy(batch, (w) => eventKind(w.event)).values()) await writeBatch(ofKind);
      }
    } finally {
      writing = false;
    }
  }

  async function writeBatch(batch: Waiting[]): Promise<void> {
    try {
      await insertEvents(db, batch.map((w) => w.event));
      for (const w of batch) w.resolve();
    } catch (err) {
      if (batch.length === 1) return batch[0]!.reject(err);
      for (const w of batch) await writeBatch([w]);
    }
  }

  return {
    write(event) {
      return new Promise<void>((resolve, reject) => {
        waiting.push({ event, resolve, reject });
        if (!writing) void drain();
      });
    },
  };
}
