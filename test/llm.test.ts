/**
 * The optional language-model analyzer against a chat-completions server this test starts on
 * loopback: a good answer is used and cached, bad JSON, a schema violation, an HTTP error and a
 * timeout keep the static fields and are counted; a second run reads the cache instead of asking.
 */
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { refineWithLlm, LLM_DEFAULTS } from "../pipeline/llm.js";
import { run } from "../pipeline/run.js";
import type { Envelope, LlmConfig } from "../pipeline/schema-types.generated.js";
import { writeConfig } from "./helpers/config.js";
import { fixture, makeRepo, tempDir } from "./helpers/git.js";

const GOOD = {
  documentation: "Raised when the tensor is wrapped twice.",
  triggerScenarios: "`kind` matches `Autodiff` twice.",
  commonSituations: "Wrapping an autodiff tensor again.",
  solutions: ["Unwrap once before calling."],
  preventionTips: ["Wrap each tensor once."],
};

/** What the server answers, by the record message it is asked about. */
function answer(message: string): { status: number; content?: string; delayMs?: number } {
  switch (message) {
    case "good answer":
    case "Requires autodiff tensor.":
      return { status: 200, content: JSON.stringify(GOOD) };
    case "fenced answer":
      return { status: 200, content: "```json\n" + JSON.stringify({ ...GOOD, documentation: "Fenced but fine." }) + "\n```" };
    case "bad json":
      return { status: 200, content: "{ documentation: nope" };
    case "schema violation":
      return { status: 200, content: JSON.stringify({ ...GOOD, solutions: "not a list" }) };
    case "server error":
      return { status: 500 };
    case "too slow":
      return { status: 200, content: JSON.stringify(GOOD), delayMs: 1500 };
    default:
      return { status: 404 };
  }
}

interface Seen {
  readonly message: string;
  /** The whole input the model was sent. */
  readonly input: Record<string, unknown>;
  readonly authorization: string | undefined;
  readonly model: string;
}

let server: Server;
let endpoint: string;
const seen: Seen[] = [];

before(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      const request = JSON.parse(body) as { model: string; messages: { role: string; content: string }[] };
      const input = JSON.parse(request.messages.find((m) => m.role === "user")!.content) as { message: string };
      seen.push({ message: input.message, input, authorization: req.headers.authorization, model: request.model });
      const a = answer(input.message);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(a.status, { "content-type": "application/json" });
        res.end(a.content === undefined ? "{}" : JSON.stringify({ choices: [{ message: { role: "assistant", content: a.content } }] }));
      };
      if (a.delayMs) setTimeout(send, a.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

/** Envelopes made from the seed line, one per message (ids differ so the cache keys differ too). */
function envelopes(messages: readonly string[]): Envelope[] {
  const seed = JSON.parse(readFileSync(fixture("seed", "envelope.json"), "utf8")) as Envelope;
  return messages.map((m, i) => ({ ...seed, record: { ...seed.record, id: i.toString(16).padStart(16, "0"), errorMessage: m } }));
}

function settings(extra: Partial<LlmConfig> = {}): LlmConfig {
  return { ...LLM_DEFAULTS, enabled: true, endpoint, model: "test-model", apiKeyEnv: "TEST_LLM_KEY", timeoutMs: 300, maxConcurrency: 3, ...extra };
}

describe("language-model analyzer", () => {
  const messages = ["good answer", "fenced answer", "bad json", "schema violation", "server error", "too slow"];

  it("uses valid answers, keeps the static fields on every failure, then answers from the cache", async () => {
    const cacheDir = tempDir("error-catalog-llm-");
    try {
      const input = envelopes(messages);
      seen.length = 0;
      const first = await refineWithLlm(input, { settings: settings(), cacheDir, env: { TEST_LLM_KEY: "secret" } });
      assert.deepEqual(first.counts, { static: 4, llm: 2, llmCached: 0, llmFailed: 4 });
      assert.deepEqual(seen.map((s) => s.message).sort(), [...messages].sort());
      assert.ok(seen.every((s) => s.authorization === "Bearer secret" && s.model === "test-model"));

      const byMessage = new Map(first.envelopes.map((e) => [e.record.errorMessage, e]));
      assert.deepEqual(byMessage.get("good answer")!.record.solutions, GOOD.solutions);
      assert.equal(byMessage.get("good answer")!.record.documentation, GOOD.documentation);
      assert.equal(byMessage.get("fenced answer")!.record.documentation, "Fenced but fine.");
      // Everything else of a rewritten record is the static analysis.
      assert.equal(byMessage.get("good answer")!.record.typeGuard, input[0]!.record.typeGuard);
      for (const failed of ["bad json", "schema violation", "server error", "too slow"]) {
        const i = messages.indexOf(failed);
        assert.deepEqual(first.envelopes[i], input[i], `${failed}: static fields kept`);
      }

      seen.length = 0;
      const second = await refineWithLlm(input, { settings: settings(), cacheDir, env: {} });
      assert.deepEqual(second.counts, { static: 4, llm: 0, llmCached: 2, llmFailed: 4 });
      assert.deepEqual(seen.map((s) => s.message).sort(), ["bad json", "schema violation", "server error", "too slow"], "cached answers are not asked again");
      assert.ok(seen.every((s) => s.authorization === undefined), "no key, no Authorization header");
      assert.deepEqual(second.envelopes.slice(0, 2), first.envelopes.slice(0, 2));

      seen.length = 0;
      const otherModel = await refineWithLlm(input.slice(0, 1), { settings: settings({ model: "other-model" }), cacheDir, env: {} });
      assert.deepEqual(otherModel.counts, { static: 0, llm: 1, llmCached: 0, llmFailed: 0 }, "the model is part of the cache key");
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });

  it("sends every fact the envelope holds, new fields included, without lines, and marks the fields the model wrote", async () => {
    const cacheDir = tempDir("error-catalog-llm-");
    try {
      const [seed] = envelopes(["good answer"]);
      // A field of the facts and one of the envelope that this analyzer does not know by name.
      const withNew = { ...seed!, facts: { ...seed!.facts!, entryPoints: [{ path: "Tensor::narrow", line: 12 }] }, reproductions: [{ test: "narrow_out_of_range" }] } as unknown as Envelope;
      seen.length = 0;
      const result = await refineWithLlm([withNew, ...envelopes(["x", "bad json"]).slice(1)], { settings: settings(), cacheDir, env: {} });
      const sent = seen.find((x) => x.message === "good answer")!.input;
      assert.deepEqual((sent.facts as { entryPoints: unknown }).entryPoints, [{ path: "Tensor::narrow" }]);
      assert.deepEqual(sent.reproductions, [{ test: "narrow_out_of_range" }]);
      assert.equal((sent.staticAnalysis as { typeGuard: unknown }).typeGuard, seed!.record.typeGuard);
      assert.doesNotMatch(JSON.stringify(sent), /"line(?:Number)?":/);
      const [good, bad] = [result.envelopes[0]!, result.envelopes[1]!];
      assert.deepEqual(good.modelFields, ["documentation", "triggerScenarios", "commonSituations", "solutions", "preventionTips"]);
      assert.equal(bad.modelFields, undefined);
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });

  it("asks nothing when disabled", async () => {
    seen.length = 0;
    const input = envelopes(messages);
    const result = await refineWithLlm(input, { settings: { ...settings(), enabled: false }, cacheDir: tempDir("error-catalog-llm-") });
    assert.deepEqual(result.counts, { static: messages.length, llm: 0, llmCached: 0, llmFailed: 0 });
    assert.deepEqual(result.envelopes, input);
    assert.equal(seen.length, 0);
  });

  it("is wired into run: the manifest counts what the model did, and unchanged records keep their times", async () => {
    const tree = tempDir("error-catalog-llm-tree-");
    mkdirSync(path.join(tree, "crates", "d", "src"), { recursive: true });
    copyFileSync(fixture("analyze", "programs", "dispatch.rs"), path.join(tree, "crates", "d", "src", "lib.rs"));
    const repo = makeRepo([tree]);
    const configPath = writeConfig(repo.dir, repo.shas[0]!, { analysis: { llm: { enabled: true, endpoint, model: "test-model", timeoutMs: 1000 } } });
    const first = await run({ configPath, now: () => new Date("2026-03-01T00:00:00.000Z") });
    assert.deepEqual(first.manifest?.analysis, { static: 2, llm: 1, llmCached: 0, llmFailed: 2 });
    const second = await run({ configPath, force: true, now: () => new Date("2026-03-02T00:00:00.000Z") });
    assert.deepEqual(second.manifest?.analysis, { static: 2, llm: 0, llmCached: 1, llmFailed: 2 });
    const lines = readFileSync(path.join(second.dir, "records.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Envelope);
    assert.equal(lines.length, 3);
    const rewritten = lines.find((e) => e.record.errorMessage === "Requires autodiff tensor.")!;
    assert.equal(rewritten.record.documentation, GOOD.documentation);
    assert.ok(lines.every((e) => e.record.contentChangedAt === "2026-03-01T00:00:00.000Z"), "same analysed content: times carried over");
  });
});
