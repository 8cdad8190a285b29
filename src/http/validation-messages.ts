// Validation problems in words a user can act on, pure: every Ajv issue of a request (Ajv runs
// with allErrors and verbose) becomes one {field, message}; the alternatives of a union are folded
// into one message naming every allowed value and what was sent ("mode must be one of
// DEVELOPMENT, STAGING, PRODUCTION; got \"PRODUCTON\"").

export interface ValidationIssue {
  instancePath?: string; schemaPath?: string; message?: string; keyword?: string; params?: Record<string, unknown>; data?: unknown;
}

export interface ValidationProblem { field: string; message: string }

function fieldName(context: string | undefined, path: string | undefined): string {
  const dotted = (path ?? '').replace(/^\//, '').split('/').filter(Boolean).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~')).join('.');
  if (context === 'body' || context === undefined) return dotted;
  return dotted ? `${context}.${dotted}` : context;
}

/** what was sent, short enough for a message */
export function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function allowedOf(issue: ValidationIssue): unknown[] {
  if (Array.isArray(issue.params?.allowedValues)) return issue.params.allowedValues as unknown[];
  return issue.params?.allowedValue !== undefined ? [issue.params.allowedValue] : [];
}

function oneOf(values: unknown[]): string {
  return values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');
}

function single(issue: ValidationIssue, context: string | undefined): ValidationProblem {
  const base = fieldName(context, issue.instancePath);
  const at = (name: string) => (base ? `${base}.${name}` : name);
  const subject = base || (context ?? 'body');
  switch (issue.keyword) {
    case 'required': {
      const field = at(String(issue.params?.missingProperty));
      return { field, message: `${field} is required` };
    }
    case 'additionalProperties': {
      const field = at(String(issue.params?.additionalProperty));
      return { field, message: `${field} is not a known field` };
    }
    case 'not':
      return { field: subject, message: `${subject} is not a known field` };
    case 'const':
    case 'enum':
      return { field: subject, message: `${subject} must be one of ${oneOf(allowedOf(issue))}; got ${shown(issue.data)}` };
    case 'type':
      if (!base && (context === 'body' || context === undefined) && issue.data === undefined) {
        return { field: '', message: 'A JSON body is required' };
      }
      return { field: subject, message: `${subject} must be ${String(issue.params?.type)}; got ${shown(issue.data)}` };
    default:
      return { field: subject, message: `${subject} ${issue.message ?? 'is invalid'}` };
  }
}

/** one problem per issue, unions folded, duplicates dropped, in Ajv's order */
export function validationProblems(issues: readonly ValidationIssue[], context?: string): ValidationProblem[] {
  const isUnion = (i: ValidationIssue) => i.keyword === 'anyOf' || i.keyword === 'oneOf';
  const inside = (u: ValidationIssue, i: ValidationIssue) => u !== i && !!u.schemaPath && !!i.schemaPath?.startsWith(`${u.schemaPath}/`);
  const unions = issues.filter(isUnion);
  const out: ValidationProblem[] = [];
  for (const issue of issues) {
    if (unions.some((u) => inside(u, issue))) continue;
    if (!isUnion(issue)) {
      out.push(single(issue, context));
      continue;
    }
    const nested = issues.filter((i) => inside(issue, i));
    const deeper = nested.filter((i) => i.instancePath !== issue.instancePath);
    const here = nested.filter((i) => i.instancePath === issue.instancePath && !isUnion(i));
    const subject = fieldName(context, issue.instancePath) || (context ?? 'body');
    if (deeper.length > 0) {
      // the value has the shape of a branch but something inside it is wrong: report that
      out.push(...validationProblems(deeper, context));
      continue;
    }
    const values = here.filter((i) => i.keyword === 'const' || i.keyword === 'enum');
    if (values.length > 0) {
      // a union of literals (TypeBox writes {type, const} per branch): name the values, not the types
      out.push({ field: subject, message: `${subject} must be one of ${oneOf([...new Set(values.flatMap(allowedOf))])}; got ${shown(issue.data)}` });
    } else if (here.length > 0 && here.every((i) => i.keyword === 'type')) {
      const kinds = [...new Set(here.map((i) => String(i.params?.type)))];
      out.push({ field: subject, message: `${subject} must be ${kinds.join(' or ')}; got ${shown(issue.data)}` });
    } else if (here.length > 0) {
      out.push(single(here.find((i) => i.keyword !== 'type') ?? here[0]!, context));
    } else {
      out.push({ field: subject, message: `${subject} has an invalid value; got ${shown(issue.data)}` });
    }
  }
  const seen = new Set<string>();
  return out.filter((p) => !seen.has(p.message) && seen.add(p.message));
}
