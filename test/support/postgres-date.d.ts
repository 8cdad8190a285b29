// postgres-date is pg's own timestamptz reader (pg → pg-types → postgres-date), the reader berth
// replaced with src/db/timestamps.ts; its test compares the two. It ships no types.
declare module 'postgres-date' {
  export default function parseDate(text: string): Date | number | null;
}
