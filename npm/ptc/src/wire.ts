// Reading what crosses the pipe: ptc's output cut into bounded lines, what
// tells whose a line was when it cannot be read, and an approver's answer.
// Internal: not exported from the package's index.

/** The longest line from ptc a session reads by default (64 MiB). */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** How many events of a run its outcome keeps by default. */
export const MAX_EVENTS = 1000;

/** What is kept of a line that cannot be read, to tell whose it was. */
export const HEAD_BYTES = 64 * 1024;

/** One line of ptc's output: `data` is the whole line, or only its start when it was longer than the bound (then `size` is larger). */
export interface Line {
  data: Buffer;
  size: number;
}

/**
 * Cuts ptc's output into lines of at most `limit` bytes. A longer line costs
 * at most `limit` bytes while it is read: past the bound only its first
 * {@link HEAD_BYTES} are kept, and the rest is counted and dropped.
 */
export class LineReader {
  private parts: Buffer[] = [];
  private size = 0;
  private head: Buffer | undefined;

  constructor(private readonly limit: number) {}

  /** The lines `chunk` ends. */
  feed(chunk: Buffer): Line[] {
    const lines: Line[] = [];
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(10, start);
      if (end < 0) {
        this.take(chunk.subarray(start));
        return lines;
      }
      this.take(chunk.subarray(start, end));
      lines.push(this.finish());
      start = end + 1;
    }
  }

  /** The last line, when the output ended without a newline. */
  end(): Line[] {
    return this.size > 0 ? [this.finish()] : [];
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    this.size += piece.length;
    if (this.head !== undefined) return;
    if (this.size <= this.limit) {
      // A copy: a slice would keep the whole chunk alive.
      this.parts.push(Buffer.from(piece));
      return;
    }
    const keep = Math.min(HEAD_BYTES, this.limit);
    const head: Buffer[] = [];
    let kept = 0;
    for (const part of [...this.parts, piece]) {
      const cut = part.subarray(0, keep - kept);
      head.push(cut);
      kept += cut.length;
    }
    this.head = Buffer.concat(head);
    this.parts = [];
  }

  private finish(): Line {
    const line: Line = { data: this.head ?? Buffer.concat(this.parts), size: this.size };
    this.parts = [];
    this.size = 0;
    this.head = undefined;
    return line;
  }
}

const SPACE = new Set([" ", "\t", "\r", "\n"]);

function skipSpace(text: string, i: number): number {
  while (i < text.length && SPACE.has(text[i] as string)) i++;
  return i;
}

/** The index after the JSON string starting at `i`, or -1 when it is cut short. */
function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === "\\") j++;
    else if (text[j] === '"') return j + 1;
  }
  return -1;
}

/** The index after the JSON value starting at `i`, or -1 when it is cut short. */
function valueEnd(text: string, i: number): number {
  const first = text[i];
  if (first === '"') return stringEnd(text, i);
  if (first === "{" || first === "[") {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      const c = text[j];
      if (c === '"') {
        const end = stringEnd(text, j);
        if (end < 0) return -1;
        j = end - 1;
      } else if (c === "{" || c === "[") {
        depth++;
      } else if (c === "}" || c === "]") {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return -1;
  }
  let j = i;
  while (j < text.length && !",}] \t\r\n".includes(text[j] as string)) j++;
  return j < text.length && j > i ? j : -1;
}

/**
 * The members of the JSON object `data` starts with, as far as they are
 * whole (and one level into an object member cut short): what tells whose
 * an unreadable line was (its `id`, `method`, `params.runId`).
 */
export function headOf(data: Buffer): Map<string, unknown> {
  return objectHead(data.subarray(0, HEAD_BYTES).toString(), 0, false);
}

function objectHead(text: string, start: number, nested: boolean): Map<string, unknown> {
  const members = new Map<string, unknown>();
  let i = skipSpace(text, start);
  if (text[i] !== "{") return members;
  i++;
  for (;;) {
    i = skipSpace(text, i);
    if (text[i] !== '"') return members;
    const keyEnd = stringEnd(text, i);
    if (keyEnd < 0) return members;
    const key = parse(text.slice(i, keyEnd));
    i = skipSpace(text, keyEnd);
    if (typeof key !== "string" || text[i] !== ":") return members;
    i = skipSpace(text, i + 1);
    const end = valueEnd(text, i);
    const value = end < 0 ? undefined : parse(text.slice(i, end));
    if (value === undefined) {
      if (!nested && text[i] === "{") members.set(key, objectHead(text, i, true));
      return members;
    }
    // A member counts once what follows shows it whole (a number at the cut may go on).
    i = skipSpace(text, end);
    if (text[i] !== "," && text[i] !== "}") return members;
    members.set(key, value);
    if (text[i] === "}") return members;
    i++;
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A few words on what an approver answered. */
export function describe(value: unknown): string {
  switch (typeof value) {
    case "string":
      return `${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)} (a string)`;
    case "number":
    case "boolean":
      return `${String(value)} (a ${typeof value})`;
    case "bigint":
      return `${value.toString().slice(0, 40)}n (a bigint)`;
    case "undefined":
      return "undefined";
    case "symbol":
      return "a symbol";
    case "function":
      return "a function";
    default:
      break;
  }
  if (value === null) return "null";
  if (Array.isArray(value)) return `an array of ${value.length}`;
  const keys = Object.keys(value as object);
  if (keys.includes("approved")) {
    return `an object whose approved is ${describe((value as { approved?: unknown }).approved)}`;
  }
  const shown = keys.slice(0, 3).map((key) => JSON.stringify(key.slice(0, 20)));
  if (keys.length > 3) shown.push("…");
  return keys.length === 0 ? "an object with no keys" : `an object with keys ${shown.join(", ")}`;
}

/**
 * The answer to `tools/approve` for an approver's answer: only `true` or
 * `{ approved: true }` approves; `false` and `{ approved: false, reason? }`
 * refuse as they say; anything else refuses, saying what it was. Reads
 * `approved` and `reason` once each (a getter that throws is the caller's
 * to catch: the approver failed).
 */
export function approvalReply(answer: unknown): { approved: boolean; reason?: string } {
  if (answer === true || answer === false) return { approved: answer };
  if (typeof answer === "object" && answer !== null && !Array.isArray(answer)) {
    const { approved, reason } = answer as { approved?: unknown; reason?: unknown };
    if (approved === true || approved === false) {
      return typeof reason === "string" ? { approved, reason } : { approved };
    }
  }
  return {
    approved: false,
    reason: `the approver's answer was not an approval: ${describe(answer)}; only true or { approved: true } approves`,
  };
}
