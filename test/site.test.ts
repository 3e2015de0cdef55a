/**
 * `error-catalog site` on the shapes fixture, two commits run through the pipeline: commit 2
 * drops `load` (its `.expect` record is removed) and adds `reshape` (a record is added); one
 * message holds a `<script>`. The files and their bytes first, then the pages in headless
 * Chromium, one browser for the file. Expectations are written by hand from the fixture (its
 * lines, messages) and from what rustc printed for it.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, test } from "node:test";
import { HtmlValidate } from "html-validate";
import type { Browser, Page } from "playwright-core";
import { buildSite, SITE_MARK } from "../pipeline/commands/site.js";
import { PipelineError } from "../pipeline/errors.js";
import { run } from "../pipeline/run.js";
import { browserMissing, launchBrowser } from "./helpers/browser.js";
import { cli } from "./helpers/cli.js";
import { fixture, makeRepo, tempDir } from "./helpers/git.js";

const repo = makeRepo([fixture("site", "1"), fixture("site", "2")]);
const [SHA1, SHA2] = repo.shas as [string, string];
const work = tempDir("error-catalog-site-");
const config = path.join(work, "config.json");
const site = path.join(work, "www");
const V1 = `0001-${SHA1.slice(0, 12)}`;
const V2 = `0002-${SHA2.slice(0, 12)}`;

const SCRIPT_MESSAGE = "<script>window.scriptRan = true</script> is not a label";
const DIMENSION = "Dimension {} is out of bounds for a shape of rank {}.";
/** What rustc 1.95 printed when `Shape::new(vec![2, 3]).dim(7)` ran on commit 2's lib.rs (RUST_BACKTRACE=0). */
const DIMENSION_PANIC = "thread 'main' (19601) panicked at src/lib.rs:15:13:\nDimension 7 is out of bounds for a shape of rank 2.\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n";

/** Every file under `dir`, relative, with `/`, sorted. */
function listFiles(dir: string, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? listFiles(path.join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`]))
    .sort();
}

function read(file: string): string {
  return readFileSync(path.join(site, file), "utf8");
}

/** The page of the record with this message, from the JSON index. */
function pageOf(message: string): string {
  const index = JSON.parse(read("api/errors.json")) as { errors: { errorMessage: string; page: string }[] };
  const entry = index.errors.find((e) => e.errorMessage === message);
  assert.ok(entry, `a record says ${JSON.stringify(message)}`);
  return entry.page;
}

before(async () => {
  writeFileSync(config, JSON.stringify({ output: "out", cacheDir: "cache", contextLines: 3, includeTestCode: false, targets: [{ repo: "example/shapes", url: repo.dir, sha: SHA1, include: ["**/*.rs"], exclude: [] }] }));
  for (const [i, sha] of [SHA1, SHA2].entries()) await run({ configPath: config, sha, now: () => new Date(Date.UTC(2026, 1, i + 1)) });
  await buildSite({ configPath: config, site });
});

describe("the site's files", () => {
  test("a page and a JSON file per record, the index, the diff of the two versions, the assets", () => {
    const files = listFiles(site);
    assert.deepEqual(files.filter((f) => f.startsWith("errors/")).length, 4);
    assert.ok(files.includes("index.html"));
    assert.ok(files.includes(`diffs/${V1}...${V2}.html`));
    assert.deepEqual(files.filter((f) => f.startsWith("assets/")), ["assets/search-data.js", "assets/search.js", "assets/style.css"]);
    assert.equal(files.filter((f) => /^api\/errors\/[0-9a-f]{16}\.json$/.test(f)).length, 4);
    assert.ok(files.includes(SITE_MARK));
  });

  test("api/errors/<id>.json is the envelope's line of records.jsonl, byte for byte", () => {
    const lines = readFileSync(path.join(work, "out", "example", "shapes", V2, "records.jsonl"), "utf8").split("\n").filter((l) => l !== "");
    assert.equal(lines.length, 4);
    for (const line of lines) {
      const id = (JSON.parse(line) as { record: { id: string } }).record.id;
      assert.equal(read(`api/errors/${id}.json`), `${line}\n`);
    }
    const index = JSON.parse(read("api/errors.json")) as { version: string; errors: { errorMessage: string }[] };
    assert.equal(index.version, V2);
    assert.deepEqual(index.errors.map((e) => e.errorMessage).sort(), ["A shape needs at least one dimension.", "Cannot reshape a shape of {} elements into {} elements.", DIMENSION, SCRIPT_MESSAGE].sort());
  });

  test("every page is valid HTML5 with html-validate's recommended rules (WCAG ones included)", async () => {
    // Note: a title is the message, as long as the message is (long-title is a search-engine rule).
    const validator = new HtmlValidate({ extends: ["html-validate:recommended"], rules: { "long-title": "off" } });
    const pages = listFiles(site).filter((f) => f.endsWith(".html"));
    assert.equal(pages.length, 6, "4 records, the index, a diff");
    for (const file of pages) {
      const report = await validator.validateString(read(file), file);
      assert.deepEqual(report.results.flatMap((r) => r.messages.map((m) => `${file}:${m.line}:${m.column} ${m.ruleId}: ${m.message}`)), []);
    }
  });

  test("a <script> in a message is escaped in the page's source", () => {
    const html = read(pageOf(SCRIPT_MESSAGE));
    assert.ok(!html.includes("<script>window"), "no script element made of the message");
    assert.ok(html.includes("&lt;script&gt;window.scriptRan = true&lt;/script&gt; is not a label"));
    assert.ok(!read("index.html").includes("<script>window"));
    // Inside the search data's script, `<` is written as \u003c.
    assert.ok(!read("assets/search-data.js").includes("</script>"));
  });

  test("the same version gives the same bytes; an older version can be rendered", async () => {
    const hash = (dir: string) => createHash("sha256").update(listFiles(dir).map((f) => `${f}\0${readFileSync(path.join(dir, f)).toString("base64")}`).join("\n")).digest("hex");
    const again = path.join(work, "again");
    await buildSite({ configPath: config, site: again });
    assert.equal(hash(again), hash(site));
    const old = path.join(work, "old");
    const result = await buildSite({ configPath: config, site: old, version: "0001" });
    assert.equal(result.version, V1);
    assert.equal(listFiles(old).filter((f) => f.startsWith("diffs/")).length, 0);
    assert.ok(readFileSync(path.join(old, "index.html"), "utf8").includes("Could not read the shape file"));
  });

  test("--base-url adds canonical links; a folder holding other files is left alone", async () => {
    const other = path.join(work, "published");
    await buildSite({ configPath: config, site: other, baseUrl: "https://example.github.io/shapes" });
    assert.match(readFileSync(path.join(other, "index.html"), "utf8"), /<link rel="canonical" href="https:\/\/example\.github\.io\/shapes\/">/);
    await assert.rejects(buildSite({ configPath: config, site: other, baseUrl: "ftp://example.com/" }), (e: unknown) => e instanceof PipelineError && e.code === "E_USAGE");
    const foreign = path.join(work, "foreign");
    mkdirSync(foreign);
    writeFileSync(path.join(foreign, "notes.txt"), "mine");
    await assert.rejects(buildSite({ configPath: config, site: foreign }), (e: unknown) => e instanceof PipelineError && e.code === "E_USAGE" && /not a site error-catalog wrote/.test(e.message));
    assert.equal(readFileSync(path.join(foreign, "notes.txt"), "utf8"), "mine");
  });

  test("without --site the site goes to _site beside the output folder", async () => {
    const result = await buildSite({ configPath: config });
    assert.equal(result.dir, path.join(work, "_site"));
    assert.ok(listFiles(result.dir).includes("index.html"));
  });

  test("the CLI: `site` writes the newest version and says where; a bad --base-url exits 2", () => {
    const out = path.join(work, "cli-site");
    const ok = cli(["site", "--config", config, "--site", out]);
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(ok.stdout, `example/shapes ${V2}: 4 records, ${listFiles(out).length - 1} files, ${ok.stdout.match(/(\d+) bytes/)![1]} bytes → ${out}\n`);
    const bad = cli(["site", "--config", config, "--site", out, "--base-url", "not a url"]);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--base-url "not a url" is not a URL/);
  });
});

const missing = browserMissing();

describe("the site in a browser", { skip: missing ?? false }, () => {
  let browser: Browser;
  let page: Page;
  const open = async (file: string) => {
    await page.goto(pathToFileURL(path.join(site, file)).href);
  };

  before(async () => {
    browser = await launchBrowser();
    page = await browser.newPage();
    page.on("pageerror", (error) => assert.fail(`a script failed on the page: ${error.message}`));
  });
  after(async () => {
    await browser?.close();
  });

  test("a record page shows every section of the seed page, in its order, and a working permalink", async () => {
    await open(pageOf(DIMENSION));
    assert.equal(await page.locator("h1").textContent(), DIMENSION);
    assert.deepEqual(await page.locator("main h2").allTextContents(), ["Error message", "What it means", "Source", "Solutions", "Example fix", "When it happens", "Related errors"]);
    assert.deepEqual(await page.locator("main h3").allTextContents().then((h) => h.filter((x) => x === "Occurrence")), ["Occurrence"]);
    // The excerpt (3 lines of context) with the site's line, 15, marked.
    assert.equal(await page.locator(".excerpt mark").getAttribute("data-n"), "15");
    assert.match((await page.locator(".excerpt mark").textContent())!, /panic!\("Dimension \{\} is out of bounds/);
    const permalink = await page.getByRole("link", { name: `View on GitHub (pinned to ${SHA2.slice(0, 10)})` }).getAttribute("href");
    assert.equal(permalink, `https://github.com/example/shapes/blob/${SHA2}/src/lib.rs#L12-L18`);
    // The permalink's lines are the excerpt's, at that commit.
    const source = execFileSync("git", ["-C", repo.dir, "show", `${SHA2}:src/lib.rs`], { encoding: "utf8" }).split("\n");
    const excerpt = (await page.locator(".excerpt .line").allTextContents()).join("\n");
    assert.equal(excerpt, source.slice(11, 18).join("\n"));
    // The public method a user calls, and the repository's test that panics with the message, each linked at the commit.
    const entry = page.locator("ul.entry-points li a");
    assert.deepEqual(await entry.allTextContents(), ["Shape::dim"]);
    assert.equal(await entry.getAttribute("href"), `https://github.com/example/shapes/blob/${SHA2}/src/lib.rs#L13`);
    const test = page.locator("ul.reproductions li");
    assert.match((await test.textContent())!, /^dim_past_the_rank src\/lib\.rs:\d+, a should_panic test that reaches the site, expects is out of bounds for a shape of rank$/);
    assert.equal(await test.locator("a").getAttribute("href"), `https://github.com/example/shapes/blob/${SHA2}/src/lib.rs#L${source.findIndex((l) => l.includes("fn dim_past_the_rank")) + 1}`);
    // The footer's JSON link opens the envelope.
    await page.getByRole("link", { name: /^api\/errors\/[0-9a-f]{16}\.json$/ }).click();
    const envelope = JSON.parse((await page.locator("body").textContent())!) as { record: { errorMessage: string; lineNumber: number } };
    assert.deepEqual([envelope.record.errorMessage, envelope.record.lineNumber], [DIMENSION, 15]);
  });

  test("related errors link to their pages", async () => {
    await open(pageOf(DIMENSION));
    const related = page.locator("section[aria-labelledby=related] a");
    assert.ok((await related.count()) > 0);
    const name = (await related.first().textContent())!;
    await related.first().click();
    assert.equal(await page.locator("h1").textContent(), name);
  });

  test("pasting the whole block rustc printed finds the record first, and its link opens it", async () => {
    await open("index.html");
    await page.locator("#paste").fill(DIMENSION_PANIC);
    const first = page.locator("#paste-results li a").first();
    assert.equal(await first.textContent(), DIMENSION);
    assert.match((await page.locator("#paste-results li").first().textContent())!, /src\/lib\.rs:15 · matched by the whole message, at the panic's location/);
    await first.click();
    assert.equal(await page.locator("h1").textContent(), DIMENSION);
  });

  test("the search lists what `error-catalog match` prints, in its order", async () => {
    await open("index.html");
    for (const text of [DIMENSION_PANIC, "is out of bounds for a shape", "a shape", "thread 'main' panicked at src/lib.rs:30:13:\nCannot reshape a shape of 6 elements into 4 elements.\n"]) {
      const printed = cli(["match", text, "--config", config]);
      // The CLI's blocks start with `<id>  <message>`.
      const expected = [...printed.stdout.matchAll(/^[0-9a-f]{16}  (.*)$/gm)].map((m) => m[1]!);
      assert.ok(expected.length > 0, `the CLI finds ${JSON.stringify(text)}`);
      await page.locator("#paste").fill(text);
      await page.locator("#paste-results li").first().waitFor();
      assert.deepEqual(await page.locator("#paste-results li .message").allTextContents(), expected, text);
    }
  });

  test("the list filters as you type", async () => {
    await open("index.html");
    assert.equal(await page.locator("#records li:visible").count(), 4);
    await page.locator("#filter").fill("reshape elements");
    assert.deepEqual(await page.locator("#records li:visible a").allTextContents(), ["Cannot reshape a shape of {} elements into {} elements."]);
    assert.equal(await page.locator("#filter-status").textContent(), "1 of 4 records shown.");
  });

  test("the diff page lists the added and the removed record", async () => {
    await open("index.html");
    await page.getByRole("link", { name: `changes since ${V1}` }).click();
    assert.equal(await page.locator("h1").textContent(), `Changes from ${V1} to ${V2}`);
    assert.deepEqual(await page.locator("section[aria-labelledby=added] li a").first().textContent(), "Cannot reshape a shape of {} elements into {} elements.");
    assert.match((await page.locator("section[aria-labelledby=removed] li").textContent())!, /^Could not read the shape file src\/lib\.rs:29/);
    assert.equal(await page.locator("section[aria-labelledby=added] h2").textContent(), "Added (1)");
    assert.equal(await page.locator("section[aria-labelledby=removed] h2").textContent(), "Removed (1)");
  });

  test("a message holding <script> is shown as text and never runs", async () => {
    await open(pageOf(SCRIPT_MESSAGE));
    assert.equal(await page.locator("h1").textContent(), SCRIPT_MESSAGE);
    assert.equal(await page.evaluate(() => (globalThis as unknown as { scriptRan?: boolean }).scriptRan), undefined);
    await open("index.html");
    await page.locator("#paste").fill(SCRIPT_MESSAGE);
    assert.equal(await page.locator("#paste-results li a").first().textContent(), SCRIPT_MESSAGE);
    assert.equal(await page.evaluate(() => (globalThis as unknown as { scriptRan?: boolean }).scriptRan), undefined);
    assert.deepEqual(await page.locator("script").evaluateAll((scripts) => scripts.map((s) => s.getAttribute("src")).sort()), ["assets/search-data.js", "assets/search.js"], "only the page's own scripts");
  });

  test("without JavaScript the index lists every record and hides the search", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const plain = await context.newPage();
    await plain.goto(pathToFileURL(path.join(site, "index.html")).href);
    assert.equal(await plain.locator("#records li").count(), 4);
    assert.equal(await plain.locator("#paste").isVisible(), false);
    await context.close();
  });
});

