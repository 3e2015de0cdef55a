/**
 * The diff as a reviewer reads it: a summary table first; added, removed and reworded records
 * with their message as text and one short link each; changed records grouped by what changed;
 * excerpt-only changes and moves folded into `<details>` (or, compact, counted). Pure: a `Diff`
 * in, markdown out. The JSON (`diff --format json`) stays the complete form.
 */
import type { Diff, DiffChanged, DiffFieldChange, DiffRecord } from "./schema-types.generated.js";

/** GitHub's limit for a job summary is 1 MiB; this leaves room for other steps' lines. */
export const MARKDOWN_BUDGET = 900 * 1024;

/** GitHub's limit for a pull request comment, in characters. */
export const COMMENT_LIMIT = 65_536;

/**
 * What a compact rendering may take of a comment, in UTF-16 code units (at least the characters
 * GitHub counts). Note: the rest is left for a heading or marker line a workflow puts around it.
 */
export const COMPACT_BUDGET = COMMENT_LIMIT - 1_536;

/** How a diff is rendered. */
export interface MarkdownOptions {
  /** At most this many entries per list (default: all in the full form, `COMPACT_ENTRIES` in the compact one). */
  readonly maxEntries?: number;
  /**
   * The form for a pull request comment: changed records and moves only counted, lists cut so the
   * whole stays under `COMPACT_BUDGET` characters.
   */
  readonly compact?: boolean;
  /** At most this many UTF-8 bytes in the full form (default `MARKDOWN_BUDGET`). */
  readonly maxBytes?: number;
}

/** Entries a compact rendering lists per class unless `maxEntries` says otherwise. */
export const COMPACT_ENTRIES = 50;

/** Messages are cut to this many characters in a list entry. */
const MESSAGE_CHARS = 160;

/**
 * What a changed field is part of, for grouping: what a user sees (the message and its kind of
 * error), where it is raised (the sites), the excerpt, or what the catalog explains about it
 * (every other content field: documentation, scenarios, solutions, tags, …).
 */
const PARTS: readonly { readonly part: string; readonly fields: ReadonlySet<string> }[] = [
  { part: "message", fields: new Set(["errorMessage", "messagePattern", "errorType", "errorClass", "severity", "errorCode", "httpStatus"]) },
  { part: "sites", fields: new Set(["occurrences"]) },
  { part: "source excerpt", fields: new Set(["sourceCode"]) },
];
const EXPLANATION = "explanation";

/**
 * Renders `diff`. The full form lists every entry (up to `maxEntries`), folding into `<details>`
 * the changed records whose message and sites are the same (excerpt or explanation changes) and
 * the moves; the compact form lists the others and counts those. Either is cut, fewer entries per list, until it fits its budget,
 * and says how many entries it left out. Pure.
 */
export function renderMarkdown(diff: Diff, options: MarkdownOptions = {}): string {
  const compact = options.compact ?? false;
  const fits = compact ? (text: string) => text.length <= COMPACT_BUDGET : (text: string) => Buffer.byteLength(text, "utf8") <= (options.maxBytes ?? MARKDOWN_BUDGET);
  const wanted = options.maxEntries ?? (compact ? COMPACT_ENTRIES : Number.POSITIVE_INFINITY);
  let text = render(diff, compact, wanted);
  if (fits(text)) return text;
  // Note: the longest list decides the size, so entries per list are searched for the most that fits.
  let [low, high] = [0, Math.min(wanted, longestList(diff))];
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(render(diff, compact, middle))) low = middle;
    else high = middle - 1;
  }
  text = render(diff, compact, low);
  return fits(text) ? text : render(diff, true, 0);
}

function longestList(diff: Diff): number {
  return Math.max(diff.added.length, diff.removed.length, diff.reworded.length, diff.changed.length, diff.moved.length);
}

/** The markdown with at most `max` entries per list. */
function render(diff: Diff, compact: boolean, max: number): string {
  const c = diff.counts;
  const oldName = diff.old.version === null ? "(nothing)" : `${diff.old.version} (\`${diff.old.sha!.slice(0, 12)}\`)`;
  const out = [
    `## error-catalog: ${diff.repo}`,
    "",
    `${oldName} → ${diff.new.version} (\`${diff.new.sha!.slice(0, 12)}\`): ${diff.old.records} → ${diff.new.records} records`,
    "",
    "| class | records |",
    "| --- | ---: |",
    `| added | ${c.added} |`,
    `| removed | ${c.removed} |`,
    `| reworded | ${c.reworded} |`,
    `| changed | ${c.changed} |`,
    `| moved | ${c.moved} |`,
    `| unchanged | ${c.unchanged} |`,
  ];
  let left = 0;
  const list = <T>(items: readonly T[], line: (x: T) => string): string[] => {
    const shown = items.slice(0, max).map(line);
    left += items.length - shown.length;
    return items.length > shown.length ? [...shown, `- … and ${items.length - shown.length} more`] : shown;
  };
  const section = (title: string, lines: readonly string[]) => (lines.length === 0 ? [] : ["", `### ${title}`, "", ...lines]);

  out.push(...section(`Added (${c.added})`, list(byPlace(diff.added, (r) => r), (r) => `- ${message(r)} ${link(r)}`)));
  out.push(...section(`Removed (${c.removed})`, list(byPlace(diff.removed, (r) => r), (r) => `- ${message(r)} was at ${link(r)}`)));
  out.push(
    ...section(
      `Reworded (${c.reworded})`,
      list(byPlace(diff.reworded, (r) => r.new), (r) =>
        // Note: the same text with another construct is a change of kind (`panic!` → `unreachable!`).
        r.old.errorMessage !== r.new.errorMessage ? `- ${message(r.old)} → ${message(r.new)} ${link(r.new)}` : r.old.kind !== r.new.kind ? `- ${message(r.new)}: ${r.old.kind} → ${r.new.kind} ${link(r.new)}` : `- ${message(r.new)}: the same text and kind, a new record ${link(r.new)}`,
      ),
    ),
  );

  const groups = changeGroups(diff.changed);
  if (groups.length > 0) {
    const lines = ["| what changed | records |", "| --- | ---: |", ...groups.map((g) => `| ${g.label} | ${g.records.length} |`)];
    for (const g of groups) {
      // Note: a group whose message and sites are the same says nothing new to a user: folded (compact: counted).
      const folded = !g.parts.includes("message") && !g.parts.includes("sites");
      if (folded && compact) {
        left += g.records.length;
        continue;
      }
      const entries = list(byPlace(g.records, (r) => r.new), (r) => `- ${message(r.new)} ${link(r.new)}${shortChanges(r.fields)}`);
      lines.push("", ...(folded ? details(`${g.label} (${g.records.length})`, entries) : [`**${g.label}** (${g.records.length})`, "", ...entries]));
    }
    out.push(...section(`Changed (${c.changed})`, lines));
  }
  if (diff.moved.length > 0) {
    if (compact) {
      out.push("", `### Moved (${c.moved})`, "", "Only their location changed.");
      left += diff.moved.length;
    } else {
      const entries = list(byPlace(diff.moved, (r) => r.new), (r) => `- ${message(r.new)} ${escapeText(`${r.old.filePath}:${r.old.lineNumber}`)} → ${link(r.new)}`);
      out.push(...section(`Moved (${c.moved})`, details("only their location changed", entries)));
    }
  }
  if (c.added + c.removed + c.changed + c.moved + c.reworded === 0) out.push("", "No differences.");
  if (left > 0) out.push("", `_${left} entries not listed here; \`error-catalog diff --format json\` has every entry._`);
  return `${out.join("\n")}\n`;
}

/** Changed records whose changes are in the same parts (`PARTS`), largest group first. */
interface ChangeGroup {
  readonly parts: readonly string[];
  readonly label: string;
  readonly records: readonly DiffChanged[];
}

function changeGroups(changed: readonly DiffChanged[]): ChangeGroup[] {
  const groups = new Map<string, DiffChanged[]>();
  for (const r of changed) {
    const key = partsOf(r.fields).join(", ");
    const list = groups.get(key);
    if (list) list.push(r);
    else groups.set(key, [r]);
  }
  return [...groups.entries()]
    .map(([key, records]) => {
      const parts = key.split(", ");
      return { parts, label: parts.length === 1 ? `the ${key} only` : key, records };
    })
    .sort((x, y) => y.records.length - x.records.length || compare(x.label, y.label));
}

/** The parts the fields belong to, in `PARTS` order, the explanation last. */
function partsOf(fields: readonly DiffFieldChange[]): string[] {
  const names = new Set(fields.map((f) => f.field));
  const parts = PARTS.filter((p) => [...names].some((n) => p.fields.has(n))).map((p) => p.part);
  return [...names].some((n) => PARTS.every((p) => !p.fields.has(n))) ? [...parts, EXPLANATION] : parts;
}

/** `<details>` around `lines`, with blank lines so GitHub renders the markdown inside. */
function details(summary: string, lines: readonly string[]): string[] {
  return ["<details>", `<summary>${escapeHtml(summary)}</summary>`, "", ...lines, "", "</details>"];
}

/**
 * What changed in the message and the sites, as `: field \`old\` → \`new\``, short values only;
 * the pattern only when the text did not change. The excerpt and the explanation are named by
 * the group.
 */
function shortChanges(fields: readonly DiffFieldChange[]): string {
  const messageChanged = fields.some((f) => f.field === "errorMessage");
  const parts = fields.flatMap((f) => {
    if (f.field === "occurrences") return [`sites ${(f.old ?? []).length} → ${(f.new ?? []).length}`];
    if (!PARTS[0]!.fields.has(f.field) || (f.field === "messagePattern" && messageChanged)) return [];
    if (typeof f.old === "string" && typeof f.new === "string" && f.old.length + f.new.length <= 160) return [`${f.field} ${code(f.old)} → ${code(f.new)}`];
    return [];
  });
  return parts.length === 0 ? "" : `: ${parts.join(", ")}`;
}

/** Sorted by file, line and id: people read by place (the JSON lists are sorted by id). */
function byPlace<T>(items: readonly T[], place: (x: T) => DiffRecord): T[] {
  return [...items].sort((x, y) => compare(place(x).filePath, place(y).filePath) || place(x).lineNumber - place(y).lineNumber || compare(place(x).id, place(y).id));
}

/** The record's message as text (its `errorMessage`, white space runs as one space), or its pattern when it has no text. */
function message(r: DiffRecord): string {
  return r.errorMessage.trim() !== "" ? code(r.errorMessage) : `pattern ${code(r.messagePattern)}`;
}

/** `[path:line](permalink#Lline)`: one link, to the site's own line. */
function link(r: DiffRecord): string {
  return `[${escapeText(`${r.filePath}:${r.lineNumber}`)}](${r.githubUrl.replace(/#L\d+(-L\d+)?$/, "")}#L${r.lineNumber})`;
}

/** An inline code span: one line, at most `MESSAGE_CHARS` characters, backticks fenced safely. */
function code(text: string): string {
  let one = text.replace(/\s+/g, " ").trim();
  if (one.length > MESSAGE_CHARS) one = `${one.slice(0, MESSAGE_CHARS - 1)}…`;
  if (one === "") return "(empty)";
  const ticks = Math.max(0, ...[...one.matchAll(/`+/g)].map((m) => m[0].length)) + 1;
  const fence = "`".repeat(ticks);
  const pad = one.startsWith("`") || one.endsWith("`") ? " " : "";
  return `${fence}${pad}${one}${pad}${fence}`;
}

function escapeText(text: string): string {
  return text.replace(/([\\`*_[\]<>|])/g, "\\$1");
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
