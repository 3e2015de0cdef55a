/**
 * The index page's script: the list filter and the panic search. The search runs the pipeline's
 * own `matchPanic` (bundled into assets/search.js by `npm run build`) on the records
 * assets/search-data.js sets (loaded when the search box is first used), so a pasted panic finds the records `error-catalog match` finds,
 * in the same order. Without this script the page still lists every record.
 */
import { HOW_TEXT, listedMatches, matchPanic, type DatasetVersion } from "../pipeline/match.js";
import { SEARCH_GLOBAL, type SearchData } from "../pipeline/site-data.js";
import type { Envelope } from "../pipeline/schema-types.generated.js";

/**
 * The versions as `matchPanic` reads them: envelopes of the cut records, their occurrences with
 * their paths (`matchPanic` reads only these fields; the match's occurrence gives the permalink).
 */
function datasets(data: SearchData): DatasetVersion[] {
  return data.versions.map((v) => ({
    version: v.version,
    envelopes: v.envelopes.map(([i, occurrences]) => ({ record: data.records[i]!.record, occurrences: occurrences.map(([f, line, githubUrl]) => ({ filePath: data.files[f]!, lineNumber: line, githubUrl })) }) as unknown as Envelope),
  }));
}

function element<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, attrs: Record<string, string> = {}): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (text !== undefined) el.textContent = text;
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  return el;
}

/**
 * The search box: the data is loaded the first time the box is used (its `data-search-data`
 * names the script), then every change of the text is matched.
 */
function setUpSearch(): void {
  const input = document.getElementById("paste") as HTMLTextAreaElement | null;
  const results = document.getElementById("paste-results");
  const status = document.getElementById("paste-status");
  const src = input?.dataset.searchData;
  if (input === null || results === null || status === null || src === undefined) return;
  let ready: { data: SearchData; versions: DatasetVersion[]; pages: Map<string, string | null>; titles: Map<string, string> } | null = null;
  let loading = false;
  const search = () => {
    if (ready === null) return;
    const { data, versions, pages, titles } = ready;
    results.replaceChildren();
    const text = input.value;
    if (text.trim() === "") {
      status.textContent = "";
      return;
    }
    const result = matchPanic(text, versions, data.selected);
    // Note: listed as `error-catalog match` lists them (`listedMatches`), in its order.
    const { listed, shown, fragments } = listedMatches(result);
    const more = listed.length - shown.length;
    status.textContent =
      listed.length === 0
        ? "No record matches this text."
        : `${listed.length} matching record${listed.length === 1 ? "" : "s"}, best first${more > 0 ? ` (the first ${shown.length} shown)` : ""}.${fragments > 0 ? ` ${fragments} more print${fragments === 1 ? "s" : ""} this text inside a longer message.` : ""}`;
    for (const m of shown) {
      const li = element("li");
      const href = pages.get(m.id) ?? m.occurrence.githubUrl;
      const name = titles.get(m.id) ?? m.record.errorMessage;
      const title = href === undefined ? element("span", name) : element("a", name, { href });
      title.className = "message";
      li.append(title, element("span", ` ${m.occurrence.filePath}:${m.occurrence.lineNumber} · matched by ${HOW_TEXT[m.how]}${m.atLocation ? ", at the panic's location" : ""}${m.version !== data.selected ? ` · in version ${m.version}` : ""}`, { class: "meta" }));
      results.append(li);
    }
  };
  const load = () => {
    if (ready !== null || loading) return search();
    loading = true;
    status.textContent = "Loading the records…";
    const script = element("script", undefined, { src });
    script.addEventListener("load", () => {
      const data = (window as unknown as Record<string, SearchData | undefined>)[SEARCH_GLOBAL];
      if (data === undefined) return void (status.textContent = "The records could not be loaded.");
      ready = { data, versions: datasets(data), pages: new Map(data.records.map((r) => [r.record.id, r.page])), titles: new Map(data.records.map((r) => [r.record.id, r.title ?? r.record.errorMessage])) };
      status.textContent = "";
      search();
    });
    script.addEventListener("error", () => (status.textContent = "The records could not be loaded."));
    document.head.append(script);
  };
  input.addEventListener("focus", load);
  input.addEventListener("input", load);
  if (input.value !== "") load();
}

function setUpFilter(): void {
  const input = document.getElementById("filter") as HTMLInputElement | null;
  const list = document.getElementById("records");
  const status = document.getElementById("filter-status");
  if (input === null || list === null || status === null) return;
  const items = [...list.children] as HTMLElement[];
  const texts = items.map((li) => (li.textContent ?? "").toLowerCase());
  const filter = () => {
    const words = input.value.toLowerCase().split(/\s+/).filter((w) => w !== "");
    let shown = 0;
    items.forEach((li, i) => {
      const hit = words.every((w) => texts[i]!.includes(w));
      li.hidden = !hit;
      if (hit) shown++;
    });
    status.textContent = words.length === 0 ? "" : `${shown} of ${items.length} records shown.`;
  };
  input.addEventListener("input", filter);
  filter();
}

setUpFilter();
setUpSearch();
for (const el of document.querySelectorAll<HTMLElement>("[data-needs-script]")) el.hidden = false;
