// Small pure text helpers: slugs from names, ISO timestamps from database values.

/** URL-friendly identifier from a display name: lower case ASCII, digits and single dashes */
export function slugify(name: string, maxLength = 63): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, maxLength)
    .replace(/-+$/g, '');
  return slug === '' ? 'service' : slug;
}

/** database timestamp (Date from pg/PGlite, or string) → ISO 8601 with Z; null stays null */
export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/** like iso() for columns that are never null */
export function isoRequired(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
